// What the setup scripts' tests start from: a local daemon and loopback
// LLM servers, all stopped when the test ends.
import type { HostPowers } from '../../src/provisioning/provisioning.js';
import { makeLocalDaemon } from './daemon.js';
import { startLlmServer, type LlmKind } from './llm-server.js';

// `any`: the daemon's objects are remote references.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Far = any;

interface Teardown {
  teardown: (f: () => Promise<void>) => void;
}

/** A daemon and one LLM server per kind given, in that order. */
export const startDaemonWithLlms = async (t: Teardown, kinds: readonly LlmKind[]) => {
  const daemon = makeLocalDaemon();
  const llms = await Promise.all(kinds.map(kind => startLlmServer(kind)));
  t.teardown(async () => {
    await daemon.stop();
    await Promise.all(llms.map(llm => llm.close()));
  });
  return { daemon, llms, host: daemon.host as Promise<HostPowers & Far> };
};

/** A daemon and one LLM server of `kind`. */
export const startDaemonWithLlm = async (t: Teardown, kind: LlmKind) => {
  const { daemon, llms, host } = await startDaemonWithLlms(t, [kind]);
  return { daemon, llm: llms[0], host };
};
