// The environment the setup scripts read settings from: process.env, with
// the `-E KEY=VALUE` pairs of `endo run`.
export type Env = Readonly<Record<string, string | undefined>>;
