// Where a braced value ends in a text that is not parsed whole: a mapping in dbt's recorded command line (whose
// quotes the shell took away), or the metadata at the start of a manifest too large to parse.

/**
 * The length of the braced value `text` starts with (its `{` to its matching `}`, braces inside strings quoted by
 * one of `quotes`, with backslash escapes, aside), or null when it does not end within `text`.
 */
export function bracedLength(text: string, quotes: string): number | null {
  if (!text.startsWith('{')) return null;
  let depth = 0;
  let quote: string | null = null;
  for (let i = 0; i < text.length; i += 1) {
    const char = text[i]!;
    if (quote !== null) {
      if (char === '\\') i += 1;
      else if (char === quote) quote = null;
    } else if (quotes.includes(char)) quote = char;
    else if (char === '{') depth += 1;
    else if (char === '}' && (depth -= 1) === 0) return i + 1;
  }
  return null;
}
