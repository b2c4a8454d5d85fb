// An error's message for a person to read, whatever was thrown.
export const describeError = (error: unknown): string =>
  error instanceof Error ? error.message : String(error);
harden(describeError);
