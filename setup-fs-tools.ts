// Placeholder: filled in by the provisioning work (issue 5).
export const main = async (_agent: unknown): Promise<void> => {
  throw Error('setup-fs-tools is not implemented yet');
};
