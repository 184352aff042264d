/**
 * The report paths' defaults and the raw-argv flag reader: what the CLI and
 * its watchdog (which loads nothing else of the CLI) both need.
 */
export const DEFAULT_JUNIT = 'reports/junit.xml';
export const DEFAULT_JSON = 'reports/results.json';
export const DEFAULT_HTML = 'reports/report.html';

/** The value of `--name v` or `--name=v` in raw argv, for the bad-flags path. */
export function flagValue(argv: string[], name: string): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === name && argv[i + 1] !== undefined) return argv[i + 1];
    if (argv[i]!.startsWith(`${name}=`)) return argv[i]!.slice(name.length + 1);
  }
  return undefined;
}
