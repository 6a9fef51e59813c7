// The attribute entries cdktf's `synth --hcl` needs; without them a hand-written construct synthesizes empty blocks.
export interface HclAttribute {
  value: unknown;
  type: 'simple' | 'list';
  storageClassType: 'string' | 'number' | 'boolean' | 'stringList' | 'numberList';
}

/** Drops unset attributes, as generated bindings do, and marks the rest as attributes, not blocks. */
export function hclAttributes(
  attributes: Record<string, HclAttribute>,
): Record<string, HclAttribute & { isBlock: false }> {
  return Object.fromEntries(
    Object.entries(attributes)
      .filter(([, attribute]) => attribute.value !== undefined)
      .map(([name, attribute]) => [name, { ...attribute, isBlock: false as const }]),
  );
}
