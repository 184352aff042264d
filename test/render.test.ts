import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { afterEach, describe, expect, it } from 'vitest';
import type { CheckResult, RunResult, SubjectResult } from '../model/results.js';
import { summarize } from '../model/results.js';
import {
  renderConsole,
  renderJUnit,
  renderJson,
  safeClip,
  safeText,
  within,
  writeReports,
  writeReportsWithin,
  xmlSafe,
} from '../render/index.js';
import type { WireFrame } from '../model/wire.js';

// ---------------------------------------------------------------------------
// Fixtures

const HOSTILE = 'evil\x1b[32mPASS\x1b[0m\r\x00\x07\x08\x9b31m\u202e';

function frame(seq: number, dir: 'in' | 'out', text: string, extra: Partial<WireFrame> = {}): WireFrame {
  return { seq, at: seq * 10, dir, connection: 1, text, ...extra };
}

function subject(subjectName: string, verdict: SubjectResult['verdict'], extra: Partial<SubjectResult> = {}): SubjectResult {
  return { subject: subjectName, verdict, findings: [], durationMs: 5, ...extra };
}

function check(id: string, title: string, results: SubjectResult[], extra: Partial<CheckResult> = {}): CheckResult {
  const area = id.split('/')[0];
  return {
    id,
    area,
    title,
    level: 'MUST',
    spec: { page: `basic/${area}`, section: 'Section' },
    requirement: `The server MUST satisfy ${id}.`,
    transports: ['stdio', 'http'],
    results,
    ...extra,
  };
}

/** Nine frames so the console excerpt (last 6) is cut; the last one is long and hostile. */
function wire(): WireFrame[] {
  const frames: WireFrame[] = [];
  for (let i = 1; i <= 8; i++) {
    frames.push(frame(i, i % 2 ? 'out' : 'in', `{"jsonrpc":"2.0","id":${i},"marker":"frame-${i}"}`));
  }
  frames.push(frame(9, 'in', `{"error":"${HOSTILE}","pad":"${'x'.repeat(400)}"}`, { connection: 2, http: { status: 500 } }));
  return frames;
}

function makeRun(over: Partial<RunResult> = {}): RunResult {
  const checks: CheckResult[] = [
    check('lifecycle/initialize', 'Initialize handshake', [subject('server', 'pass', { reason: 'ok' })]),
    check('lifecycle/version', 'Version negotiation', [
      subject('server', 'fail', {
        findings: [
          {
            requirement: 'The server MUST answer with a supported version.',
            expected: 'protocolVersion "2025-06-18"',
            actual: `protocolVersion ${HOSTILE}`,
            wire: wire(),
          },
        ],
      }),
    ]),
    check(
      'lifecycle/ping',
      'Ping answered promptly',
      [
        subject('server', 'warn', {
          findings: [{ requirement: 'The server SHOULD answer ping.', expected: 'reply', actual: 'late reply', wire: [] }],
        }),
      ],
      { level: 'SHOULD' },
    ),
    check('tools/list-changed', 'listChanged notification', [
      subject('server', 'skip', { reason: 'server did not declare tools.listChanged' }),
    ]),
    check('tools/cancel', 'Cancellation honoured', [subject('server', 'not-observed', { reason: `no slow tool to cancel ${HOSTILE}` })]),
    check('tools/input-schema', 'Tool input schemas are valid', [
      subject('tool:alpha', 'pass'),
      subject('tool:beta', 'pass'),
      subject('tool:gamma', 'pass'),
      subject(`tool:${HOSTILE}`, 'fail', {
        findings: [
          {
            requirement: 'inputSchema MUST be a JSON Schema object.',
            expected: 'type "object"',
            actual: 'type "string"',
            wire: [frame(1, 'out', '{"method":"tools/list"}'), frame(2, 'in', '{"tools":[]}]]>after]]>again')],
          },
        ],
      }),
      subject('tool:delta', 'warn', {
        findings: [{ requirement: 'title SHOULD be set.', expected: 'a title', actual: 'none', wire: [] }],
      }),
      subject('tool:eps', 'skip', { reason: 'takes no input' }),
    ]),
  ];
  const base: RunResult = {
    tool: { name: 'mcp-conformance', version: '0.1.0' },
    startedAt: '2025-01-01T00:00:00.000Z',
    durationMs: 1234,
    target: { transport: 'stdio', command: 'node server.js' },
    revision: '2025-06-18',
    server: { name: `srv${HOSTILE}`, version: '1.0.0' },
    strict: false,
    seed: 42,
    checks,
    summary: summarize(checks),
    stderr: `booting\n${HOSTILE}\nready\n`,
    harnessErrors: [],
    exitCode: 1,
  };
  return { ...base, ...over };
}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  htmlEntities: true,
  isArray: (name) => ['testsuite', 'testcase', 'property'].includes(name),
});

interface XmlCase {
  '@_name': string;
  '@_classname': string;
  properties?: { property: Array<{ '@_name': string; '@_value': string }> };
  failure?: { '@_message'?: string; '@_type'?: string; '#text'?: string } | string;
  error?: { '@_message'?: string; '#text'?: string };
  skipped?: { '@_message'?: string } | string;
  'system-out'?: string;
  'system-err'?: string;
}
interface XmlSuite {
  '@_name': string;
  testcase: XmlCase[];
}

function parseJUnit(xml: string): XmlSuite[] {
  const doc = parser.parse(xml) as { testsuites: { testsuite: XmlSuite[] } };
  return doc.testsuites.testsuite;
}

function allCases(xml: string): XmlCase[] {
  return parseJUnit(xml).flatMap((s) => s.testcase);
}

function caseNamed(xml: string, name: string): XmlCase {
  const found = allCases(xml).find((c) => c['@_name'] === name);
  if (!found) throw new Error(`no testcase ${name}`);
  return found;
}

function prop(c: XmlCase, name: string): string | undefined {
  return c.properties?.property.find((p) => p['@_name'] === name)?.['@_value'];
}

function failureText(c: XmlCase): string {
  const f = c.failure;
  if (f === undefined) return '';
  if (typeof f === 'string') return f;
  return `${f['@_message'] ?? ''}\n${f['#text'] ?? ''}`;
}

// Raw control characters a terminal would act on (C0 except \n, DEL, C1).
const RAW_CONTROL = /[\x00-\x09\x0b-\x1f\x7f-\x9f]/;
const XML_INVALID = /[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]/;

// ---------------------------------------------------------------------------

describe('safeText', () => {
  it('shows control characters as escape text', () => {
    expect(safeText('a\x1b[31mb')).toBe('a\\x1b[31mb');
    expect(safeText('x\ry\tz\nw')).toBe('x\\ry\\tz\\nw');
    expect(safeText('\x00\x7f\x9b')).toBe('\\x00\\x7f\\x9b');
    expect(safeText('abc\u202edef')).toBe('abc\\u202edef');
    expect(safeText('\u2028')).toBe('\\u2028');
  });

  it('keeps ordinary Unicode and, with multiline, real line breaks', () => {
    expect(safeText('héllo → 世界 🎉')).toBe('héllo → 世界 🎉');
    expect(safeText('a\r\nb\nc\rd', { multiline: true })).toBe('a\nb\nc\\rd');
  });

  it('escapes lone surrogates and noncharacters but keeps pairs', () => {
    expect(safeText('a\ud800b')).toBe('a\\ud800b');
    expect(safeText('a\udc00b')).toBe('a\\udc00b');
    expect(safeText('\uffff')).toBe('\\uffff');
    expect(safeText('\ud83c\udf89')).toBe('🎉');
  });

  it('stringifies non-strings without throwing', () => {
    expect(safeText(undefined)).toBe('');
    expect(safeText(12)).toBe('12');
    expect(safeText({ a: '\x1b' })).toBe('{"a":"\\u001b"}');
    expect(safeText({ big: 10n })).toBe('{"big":"10"}');
  });

  it('safeClip cuts, marks the cut and never splits a surrogate pair', () => {
    expect(safeClip('abcdef', 3)).toBe('abc…');
    expect(safeClip('abc', 3)).toBe('abc');
    expect(safeClip('abc', 10, { alreadyCut: true })).toBe('abc…');
    expect(safeClip('a🎉', 2)).toBe('a…');
    expect(safeClip('\x1b\x1b\x1b', 2)).toBe('\\x1b\\x1b…');
  });

  it('xmlSafe replaces only what XML 1.0 forbids', () => {
    expect(xmlSafe('a\x01b\tc\nd\re\ufffe')).toBe('a\\x01b\tc\nd\re\\ufffe');
  });
});

describe('renderConsole', () => {
  it('prints header, areas, checks and footer', () => {
    const text = renderConsole(makeRun(), { color: false });
    expect(text).toContain('mcp-conformance 0.1.0');
    expect(text).toMatch(/Target:\s+stdio\s+node server\.js/);
    expect(text).toMatch(/Revision:\s+2025-06-18/);
    expect(text).toMatch(/Server:\s+srv.*1\.0\.0/);
    expect(text).toMatch(/^lifecycle$/m);
    expect(text).toMatch(/^tools$/m);
    expect(text).toMatch(/^ {2}✓ lifecycle\/initialize {2}Initialize handshake$/m);
    expect(text).toMatch(/^ {2}✗ lifecycle\/version {2}Version negotiation$/m);
    expect(text).toMatch(/^ {2}! lifecycle\/ping/m);
    expect(text).toMatch(/Summary: 4 pass, 2 fail, 2 warn, 0 expected, 0 stale, 2 skip, 1 not observed {2}\(11 results, 6 checks/);
    expect(text).toMatch(/2 warnings not counted as failures/);
    expect(text).toMatch(/Result: FAILED/);
    expect(text).not.toContain('ABORTED');
  });

  it('shows counts per verdict for multi-subject checks and lists problem subjects', () => {
    const text = renderConsole(makeRun(), { color: false });
    const line = text.split('\n').find((l) => l.includes('tools/input-schema'));
    expect(line).toContain('(3 pass, 1 fail, 1 warn, 1 skip)');
    expect(line?.trimStart().startsWith('✗')).toBe(true);
    expect(text).toMatch(/^ {6}✗ tool:evil\\x1b\[32mPASS/m);
    expect(text).toMatch(/^ {6}! tool:delta$/m);
    expect(text).toMatch(/^ {6}- tool:eps — skip: takes no input$/m);
    // Passing subjects are only counted, not listed.
    expect(text).not.toMatch(/^\s+✓ tool:alpha/m);
  });

  it('details fail and warn findings with requirement, expected, actual, spec and wire', () => {
    const text = renderConsole(makeRun(), { color: false });
    expect(text).toContain('Requirement: The server MUST answer with a supported version.');
    expect(text).toContain('Expected:    protocolVersion "2025-06-18"');
    expect(text).toMatch(/Actual: {6}protocolVersion evil/);
    expect(text).toContain('Spec: basic/lifecycle#Section (MUST)');
    expect(text).toContain('Spec: basic/lifecycle#Section (SHOULD)');
    expect(text).toContain('Wire (last 6 of 9 frames):');
    expect(text).not.toContain('frame-3"');
    expect(text).toContain('→ {"jsonrpc":"2.0","id":5,"marker":"frame-5"}');
    expect(text).toContain('← {"jsonrpc":"2.0","id":8,"marker":"frame-8"}');
    // Last frame: other connection, HTTP status, cut to ~200 chars with an ellipsis.
    const last = text.split('\n').find((l) => l.includes('[conn 2] HTTP 500'));
    expect(last).toBeDefined();
    expect(last?.endsWith('…')).toBe(true);
    expect(last!.length).toBeLessThan(320);
  });

  it('shows skip and not-observed reasons on the check line', () => {
    const text = renderConsole(makeRun(), { color: false });
    expect(text).toMatch(/^ {2}- tools\/list-changed {2}listChanged notification — skip: server did not declare tools\.listChanged$/m);
    expect(text).toMatch(/^ {2}\? tools\/cancel {2}Cancellation honoured — not observed: no slow tool to cancel evil\\x1b/m);
  });

  it('dims skip reasons when colour is on', () => {
    const text = renderConsole(makeRun(), { color: true });
    expect(text).toContain('\x1b[2m— skip: server did not declare tools.listChanged\x1b[0m');
  });

  it('escapes hostile server strings and leaves no raw control characters', () => {
    for (const color of [false, true]) {
      const text = renderConsole(makeRun({ aborted: `boom ${HOSTILE}`, harnessErrors: [`bad ${HOSTILE}`] }), {
        color,
        verbose: true,
      });
      expect(text).toContain('evil\\x1b[32mPASS\\x1b[0m\\r\\x00\\x07\\x08\\x9b31m\\u202e');
      expect(text).not.toContain('\x1b[32mPASS');
      expect(text).not.toContain('\u202e');
      // With colour, the only ESC bytes are the SGR sequences we emit.
      const stripped = text.replace(/\x1b\[[0-9;]*m/g, '');
      expect(stripped).not.toMatch(RAW_CONTROL);
      if (!color) expect(text).toBe(stripped);
    }
  });

  it('has no ESC at all without colour and SGR codes with colour', () => {
    expect(renderConsole(makeRun(), { color: false })).not.toContain('\x1b');
    expect(renderConsole(makeRun(), { color: false, verbose: true })).not.toContain('\x1b');
    expect(renderConsole(makeRun(), { color: true })).toMatch(/\x1b\[32m✓\x1b\[0m/);
  });

  it('prints the ABORTED line, harness errors and stderr for an aborted run', () => {
    const text = renderConsole(makeRun({ aborted: 'server exited during initialize', harnessErrors: ['engine crashed'], exitCode: 2 }), {
      color: false,
    });
    expect(text).toMatch(/^ABORTED: server exited during initialize$/m);
    expect(text).toMatch(/^Harness errors \(1\):\n {2}- engine crashed$/m);
    expect(text).toContain('Server stderr:');
    expect(text).toMatch(/^ {2}│ srvevil|^ {2}│ evil\\x1b/m);
    expect(text).toMatch(/Result: ERROR/);
  });

  it('notes when --strict counts warnings as failures', () => {
    expect(renderConsole(makeRun({ strict: true }), { color: false })).toContain('--strict: 2 warnings counted as failures.');
  });

  it('verbose lists passing subjects and all wire frames', () => {
    const text = renderConsole(makeRun(), { color: false, verbose: true });
    expect(text).toMatch(/^ {6}✓ tool:alpha$/m);
    expect(text).toContain('frame-1"');
    expect(text).not.toContain('Wire (last');
  });

  it('groups skipped subjects by reason', () => {
    const results = Array.from({ length: 8 }, (_, i) => subject(`tool:t${i}`, 'skip', { reason: 'no input' }));
    results.push(subject('tool:ok', 'pass'));
    const checks = [check('tools/x', 'X', results)];
    const text = renderConsole(makeRun({ checks, summary: summarize(checks) }), { color: false });
    expect(text).toContain('(1 pass, 8 skip)');
    expect(text).toContain('- tool:t0, tool:t1, tool:t2, tool:t3, tool:t4 +3 more — skip: no input');
  });
});

describe('renderJUnit', () => {
  it('is valid XML with one testsuite per area and one testcase per check × subject', () => {
    const run = makeRun();
    const xml = renderJUnit(run);
    expect(XMLValidator.validate(xml)).toBe(true);
    const suites = parseJUnit(xml);
    // The server's stderr goes into a run/server-stderr testcase of a leading `run` suite; the counts close the file.
    expect(suites.map((s) => s['@_name'])).toEqual(['run', 'lifecycle', 'tools', 'summary']);
    const cases = allCases(xml).filter((c) => c['@_classname'] !== 'run');
    const marker = (r: SubjectResult) => (r.verdict === 'warn' ? ' [warn]' : r.verdict === 'not-observed' ? ' [not observed]' : '');
    const expected = run.checks.flatMap((c) =>
      c.results.map((r) => ({ name: `${c.id} [${safeText(r.subject)}]${marker(r)}`, area: c.area })),
    );
    expect(cases).toHaveLength(expected.length);
    expect(cases).toHaveLength(11);
    expect(cases.map((c) => c['@_name'])).toEqual(expected.map((e) => e.name));
    expect(cases.map((c) => c['@_classname'])).toEqual(expected.map((e) => e.area));
    expect(caseNamed(xml, 'run/server-stderr')['system-err']).toContain('ready');
  });

  it('carries spec, level and requirement in system-out, and the seed as a suite property', () => {
    const xml = renderJUnit(makeRun());
    const c = caseNamed(xml, 'lifecycle/ping [server] [warn]');
    expect(c.properties).toBeUndefined();
    expect(c['system-out']).toContain('Spec: basic/lifecycle#Section (SHOULD) https://modelcontextprotocol.io/specification/');
    expect(c['system-out']).toContain('Requirement: The server MUST satisfy lifecycle/ping.');
    const suite = parseJUnit(xml).find((s) => s['@_name'] === 'lifecycle') as unknown as XmlCase;
    expect(prop(suite, 'seed')).toBe('42');
    const noSeed = parseJUnit(renderJUnit(makeRun({ seed: undefined }))).find((s) => s['@_name'] === 'lifecycle') as unknown as XmlCase;
    expect(prop(noSeed, 'seed')).toBeUndefined();
  });

  it('turns fail into <failure> with Requirement / Expected / Actual and the wire in system-out', () => {
    const xml = renderJUnit(makeRun());
    const c = caseNamed(xml, 'lifecycle/version [server]');
    const f = c.failure;
    expect(typeof f === 'object' && f['@_message']).toMatch(
      /^Requirement: The server MUST answer with a supported version\.\nExpected: protocolVersion "2025-06-18"\nActual: protocolVersion evil/,
    );
    expect(failureText(c)).toContain('Spec: basic/lifecycle#Section (MUST)');
    expect(c['system-out']).toMatch(/^Wire:$/m);
    expect(c['system-out']).toContain('→ {"jsonrpc":"2.0","id":1,"marker":"frame-1"}');
    expect(c['system-out']).toContain('← [conn 2] HTTP 500');
    expect(caseNamed(xml, 'lifecycle/initialize [server]').failure).toBeUndefined();
  });

  it('keeps warnings passing without strict, and fails them with strict', () => {
    const lenient = renderJUnit(makeRun());
    const warnCase = caseNamed(lenient, 'lifecycle/ping [server] [warn]');
    expect(warnCase.failure).toBeUndefined();
    expect(warnCase['system-out']).toMatch(/^WARNING: requirement not fully met/);
    expect(warnCase['system-out']).toContain('Actual: late reply');
    expect(lenient).toMatch(/<testsuites [^>]*failures="2"/);

    const strict = renderJUnit(makeRun({ strict: true }));
    expect(XMLValidator.validate(strict)).toBe(true);
    const strictCase = caseNamed(strict, 'lifecycle/ping [server]');
    expect(failureText(strictCase)).toContain('Requirement: The server SHOULD answer ping.');
    expect(typeof strictCase.failure === 'object' && strictCase.failure['@_type']).toBe('warn');
    expect(failureText(caseNamed(strict, 'tools/input-schema [tool:delta]'))).toContain('Expected: a title');
    expect(strict).toMatch(/<testsuites [^>]*failures="4"/);
  });

  it('marks skip and not-observed as <skipped>, told apart by name and system-out', () => {
    const xml = renderJUnit(makeRun());
    const skip = caseNamed(xml, 'tools/list-changed [server]');
    expect(skip.skipped).toBe('');
    expect(skip['system-out']).toMatch(/^SKIPPED: server did not declare tools.listChanged/);
    const notObserved = caseNamed(xml, 'tools/cancel [server] [not observed]');
    expect(notObserved.skipped).toBe('');
    expect(notObserved['system-out']).toMatch(
      /^NOT OBSERVED \(the check applies but could not be exercised; not a pass\): no slow tool to cancel evil\\x1b\[32mPASS/,
    );
    // junit-10.xsd allows no skipped count on the root element.
    expect(xml).not.toMatch(/<testsuites [^>]*skipped=/);
    expect(xml).toMatch(/<testsuite name="tools"[^>]* skipped="3"/);
  });

  it('escapes hostile strings: no ESC, no XML-invalid characters, CDATA intact', () => {
    const run = makeRun({ aborted: `died ${HOSTILE}`, harnessErrors: [`oops \x00\ud800\uffff`] });
    run.checks[0].results[0].subject = 'tool:\x01\ufffe\udfff';
    const xml = renderJUnit(run);
    expect(XMLValidator.validate(xml)).toBe(true);
    expect(xml).not.toContain('\x1b');
    expect(xml).not.toMatch(/[\x00-\x08]/);
    expect(xml).not.toMatch(XML_INVALID);
    expect(xml).not.toMatch(/[\ud800-\udfff]/);
    expect(xml).not.toMatch(/[\x7f-\x9f\u202e]/);
    expect(xml).toContain('evil\\x1b[32mPASS');
    expect(allCases(xml).map((c) => c['@_name'])).toContain('lifecycle/initialize [tool:\\x01\\ufffe\\udfff]');
    // `]]>` inside a wire frame must not end the CDATA section early.
    const c = caseNamed(xml, `tools/input-schema [tool:${safeText(HOSTILE)}]`);
    expect(c['system-out']).toContain('← {"tools":[]}]]\\x3eafter]]\\x3eagain');
  });

  it('adds a run/aborted testcase with an <error> when the run aborted', () => {
    const xml = renderJUnit(makeRun({ aborted: 'server exited (code 1)', harnessErrors: ['engine crashed'], exitCode: 2 }));
    expect(XMLValidator.validate(xml)).toBe(true);
    const suites = parseJUnit(xml);
    expect(suites[0]['@_name']).toBe('run');
    const aborted = caseNamed(xml, 'run/aborted');
    expect(aborted['@_classname']).toBe('run');
    expect(aborted.error?.['@_message']).toBe('ABORTED: server exited (code 1)');
    expect(aborted.error?.['#text']).toContain('Server stderr (tail):');
    expect(caseNamed(xml, 'run/harness-errors').error?.['#text']).toContain('- engine crashed');
    expect(xml).toMatch(/<testsuites [^>]*errors="2"/);

    const notAborted = renderJUnit(makeRun());
    expect(allCases(notAborted).some((c) => c['@_name'] === 'run/aborted')).toBe(false);
  });

  it('does not share state between calls', () => {
    const a = renderJUnit(makeRun());
    const b = renderJUnit(makeRun());
    expect(b).toBe(a);
  });
});

describe('renderJson', () => {
  it('round-trips the run with schemaVersion 1', () => {
    const run = makeRun({ aborted: 'x' });
    run.checks[0].results[0].details = { ttl: [1, 2], note: 'c1 \x85 bidi \u202e' };
    const text = renderJson(run);
    const parsed = JSON.parse(text) as Record<string, unknown>;
    expect(parsed.schemaVersion).toBe(1);
    const { schemaVersion, ...rest } = parsed;
    expect(schemaVersion).toBe(1);
    expect(rest).toEqual(JSON.parse(JSON.stringify(run)));
    expect(rest.checks).toEqual(run.checks);
    // Pretty-printed and free of raw controls / bidi overrides.
    expect(text).toMatch(/^\{\n {2}"schemaVersion": 1,\n/);
    expect(text).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f-\x9f\u202e]/);
  });
});

describe('writeReports', () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('creates parent folders, writes both files and leaves no temp files', async () => {
    dir = await mkdtemp(join(tmpdir(), 'render-test-'));
    const run = makeRun();
    const junitPath = join(dir, 'a', 'b', 'junit.xml');
    const jsonPath = join(dir, 'c', 'report.json');
    const written = await writeReports(run, { junitPath, jsonPath });
    expect(written).toEqual([junitPath, jsonPath]);
    expect(await readFile(junitPath, 'utf8')).toBe(renderJUnit(run));
    expect(await readFile(jsonPath, 'utf8')).toBe(renderJson(run));
    expect(await readdir(join(dir, 'a', 'b'))).toEqual(['junit.xml']);
    expect(await readdir(join(dir, 'c'))).toEqual(['report.json']);

    // Overwrites an existing report in place.
    const again = await writeReports(makeRun({ strict: true }), { jsonPath });
    expect(again).toEqual([jsonPath]);
    expect((JSON.parse(await readFile(jsonPath, 'utf8')) as { strict: boolean }).strict).toBe(true);
  });

  it('writes nothing when no path is given', async () => {
    expect(await writeReports(makeRun(), {})).toEqual([]);
  });
});

describe('writeReportsWithin', () => {
  it('a report whose path does not work goes to the fallback folder, and the outcome names both', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mcpc-fallback-'));
    const notADir = join(dir, 'file');
    await writeFile(notADir, 'x');
    const fallback = join(dir, 'fallback');
    const outcome = await writeReportsWithin(
      makeRun(),
      { junitPath: join(notADir, 'junit.xml'), jsonPath: join(dir, 'ok', 'r.json') },
      5000,
      fallback,
    );
    expect(outcome.written).toEqual([join(dir, 'ok', 'r.json')]);
    expect(outcome.fallbacks).toEqual([
      { path: join(notADir, 'junit.xml'), fallback: join(fallback, 'junit.xml'), cause: expect.stringMatching(/not a folder/) },
    ]);
    expect(XMLValidator.validate(await readFile(join(fallback, 'junit.xml'), 'utf8'))).toBe(true);
    await rm(dir, { recursive: true, force: true });
  });

  it('a write that never ends is given up at its time bound', async () => {
    await expect(within(50, 'writing x', new Promise(() => {}))).rejects.toThrow('writing x did not finish within 0.1 s');
  });
});
