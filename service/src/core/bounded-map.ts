// A Map for in-memory caches that holds at most `limit` entries: adding one more starts it over. Clearing
// instead of evicting one by one keeps every operation O(1) with no bookkeeping; a cache that fills up
// just reads its entries again.
export class BoundedMap<K, V> extends Map<K, V> {
  constructor(private readonly limit: number) {
    super();
  }

  override set(key: K, value: V): this {
    if (this.size >= this.limit && !this.has(key)) this.clear();
    return super.set(key, value);
  }
}
