// What fae says when a turn ends without the model having said anything
// to the sender, so that the sender always learns fae is done, or when
// something the sender asked for could not be done, whatever the model said.

/** The model's final answer was empty and it had not replied by a tool. */
export const emptyAnswerNotice = (number: bigint): string =>
  `I finished working on message #${number} but have no answer to give (the model's reply was empty). Please ask again, perhaps more specifically.`;
harden(emptyAnswerNotice);

/** forgetConversation failed: the sender must not believe they were forgotten. */
export const forgetFailedNotice = (reason: string): string => `(Note from fae: ${reason}.)`;
harden(forgetFailedNotice);
