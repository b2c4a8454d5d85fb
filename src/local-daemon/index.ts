// The local daemon: an in-process model of an Endo daemon that is faithful
// to the guest contract (../shared/spec/endo-guest-api.md).
export { makeLocalDaemon } from './daemon.js';
export type {
  CallCounts,
  LocalDaemon,
  LocalDaemonOptions,
  MakeCaplet,
  MakeCapletOptions,
  Presence,
} from './types.js';
