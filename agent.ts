// Placeholder: filled in by the agent work (issue 3).
export const make = (_powers: unknown, _context: unknown, _options: unknown) => {
  throw Error('fae is not implemented yet');
};
