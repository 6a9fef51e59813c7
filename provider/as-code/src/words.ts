// Counted nouns in messages: "1 webhook", "2 webhooks".
export function counted(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
