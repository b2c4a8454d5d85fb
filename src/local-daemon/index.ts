// src/local-daemon/: an in-process model of an Endo daemon that is faithful
// to the guest contract (../shared/spec/endo-guest-api.md), in rooms kernel/,
// names/, mail/, workers/ and follow/. It imports src/daemon and the layers
// below; only src/chat and the tests import it (scripts/check-imports.mjs).
export { makeLocalDaemon } from './daemon.js';
export type {
  CallCounts,
  LocalDaemon,
  LocalDaemonOptions,
  MakeCaplet,
  MakeCapletOptions,
  Presence,
} from './types.js';
