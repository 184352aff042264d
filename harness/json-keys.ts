/**
 * Duplicate object keys in raw JSON text. `JSON.parse` keeps the last of two
 * equal keys silently, so a rule that keys be unique can only be judged on
 * the text as it came over the wire.
 */

export interface DuplicateKey {
  /** JSON pointer of the object holding the key twice. */
  pointer: string;
  key: string;
}

/** Every key that appears more than once in one object of `text` (best effort on malformed or cut text). */
export function duplicateKeys(text: string): DuplicateKey[] {
  const out: DuplicateKey[] = [];
  let i = 0;
  const ws = () => {
    while (i < text.length && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++;
  };
  const string = (): string => {
    const start = i;
    i++;
    while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const escape = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');
  const value = (pointer: string, depth: number): void => {
    if (depth > 256) throw new Error('too deep');
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const seen = new Set<string>();
      ws();
      if (text[i] === '}') {
        i++;
        return;
      }
      for (;;) {
        ws();
        if (text[i] !== '"') throw new Error('key expected');
        const key = string();
        ws();
        if (text[i] !== ':') throw new Error('colon expected');
        i++;
        if (seen.has(key)) out.push({ pointer, key });
        seen.add(key);
        value(`${pointer}/${escape(key)}`, depth + 1);
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] !== '}') throw new Error('end of object expected');
        i++;
        return;
      }
    }
    if (c === '[') {
      i++;
      ws();
      if (text[i] === ']') {
        i++;
        return;
      }
      for (let n = 0; ; n++) {
        value(`${pointer}/${n}`, depth + 1);
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] !== ']') throw new Error('end of array expected');
        i++;
        return;
      }
    }
    if (c === '"') {
      string();
      return;
    }
    const start = i;
    while (i < text.length && !',}] \t\n\r'.includes(text[i]!)) i++;
    if (i === start) throw new Error('value expected');
  };
  try {
    value('', 0);
  } catch {
    // Malformed or truncated text: what was found so far stands.
  }
  return out;
}
