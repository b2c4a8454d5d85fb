// A message fae sends must say something: an empty reply reaches the
// sender as a blank line, which reads as "fae is done" with no answer.
// `reply` and `send` refuse one, with an error the model can act on.

/** Throws when the strings hold no visible text and nothing is attached. */
export const assertSaysSomething = (
  tool: string,
  strings: readonly string[],
  edgeNames: readonly string[],
): void => {
  if (edgeNames.length > 0 || strings.some(text => text.trim() !== '')) return;
  throw Error(
    `${tool} refused an empty message: put the text to send in strings, for example ["Done: the file is saved."]; to end your turn without a message, answer in plain text instead`,
  );
};
harden(assertSaysSomething);
