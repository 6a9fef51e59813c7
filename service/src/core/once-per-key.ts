// A lookup that reads each key once: the first call for a key reads it, later ones get the same value. For a reader
// used inside one transaction, where nothing it reads changes, so a batch reads each shared row once.

export function oncePerKey<K, V>(read: (key: K) => V): (key: K) => V {
  const values = new Map<K, V>();
  return (key) => {
    if (values.has(key)) return values.get(key)!;
    const value = read(key);
    values.set(key, value);
    return value;
  };
}
