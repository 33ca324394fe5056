type KeyPart = number | string;

/**
 * Merges two lists that are each sorted by `key` (compared part by part: numbers by value, strings
 * by code unit, as PostgreSQL compares uuids and the stores order their keysets) into one sorted list.
 */
export function mergeByKey<T>(a: readonly T[], b: readonly T[], key: (item: T) => readonly KeyPart[]): T[] {
  const merged: T[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (compareKeys(key(a[i]!), key(b[j]!)) <= 0) merged.push(a[i++]!);
    else merged.push(b[j++]!);
  }
  return [...merged, ...a.slice(i), ...b.slice(j)];
}

function compareKeys(x: readonly KeyPart[], y: readonly KeyPart[]): number {
  for (let index = 0; index < Math.min(x.length, y.length); index += 1) {
    const [p, q] = [x[index]!, y[index]!];
    if (p !== q) return p < q ? -1 : 1;
  }
  return x.length - y.length;
}
