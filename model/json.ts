/**
 * JSON values as the suite handles them: one object test and one canonical
 * form, shared by every layer. Ground layer: imports nothing of the project.
 */

export type JsonObject = Record<string, unknown>;

/** A plain JSON object (not null, not an array). */
export const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * JSON with object keys sorted: equal for equal values, whatever the key
 * order; keys whose value is undefined are left out, as JSON.stringify does.
 * Written without recursion, so a value nested thousands of levels deep (a
 * hostile schema or result) cannot overflow the stack.
 */
export function canonical(value: unknown): string {
  const out: string[] = [];
  // Work items: a value to write, or literal text.
  const stack: Array<{ v: unknown } | string> = [{ v: value }];
  while (stack.length) {
    const item = stack.pop()!;
    if (typeof item === 'string') {
      out.push(item);
      continue;
    }
    const v = item.v;
    if (typeof v !== 'object' || v === null) {
      out.push(JSON.stringify(v) ?? 'null');
      continue;
    }
    const parts: Array<{ v: unknown } | string> = [];
    if (Array.isArray(v)) {
      parts.push('[');
      v.forEach((x, i) => parts.push(...(i ? [','] : []), { v: x }));
      parts.push(']');
    } else {
      const obj = v as JsonObject;
      const keys = Object.keys(obj)
        .filter((k) => obj[k] !== undefined)
        .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      parts.push('{');
      keys.forEach((k, i) => parts.push(`${i ? ',' : ''}${JSON.stringify(k)}:`, { v: obj[k] }));
      parts.push('}');
    }
    for (let i = parts.length - 1; i >= 0; i--) stack.push(parts[i]!);
  }
  return out.join('');
}
