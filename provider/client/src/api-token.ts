// The API token every client sends, as the tools take it from a setting: what no header can carry is refused up
// front, in one sentence that never shows the token (fetch's own error quotes the whole header).

/** The token as sent: spaces and line breaks around it go, as a header value's would (a file ends in a line break). */
export const tokenAsSent = (token: string): string => token.trim();

/**
 * What is wrong with a token, in words that follow the setting's name, or null when it can be sent: a space, line
 * break or other control character, or a non-ASCII letter inside it (pasted across lines, a stray character), or
 * nothing but spaces.
 */
export function tokenProblem(token: string): string | null {
  const sent = tokenAsSent(token);
  if (sent === '') return 'the token is empty once the spaces and line breaks around it are removed.';
  return /^[\x21-\x7e]+$/.test(sent)
    ? null
    : 'the token holds a space, line break or other character inside it that no API token has (pasted across lines?); it is not shown here.';
}
