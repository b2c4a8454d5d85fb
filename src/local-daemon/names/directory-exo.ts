// The far face of a name hub: an exo with the directory methods, guarded,
// instrumented, and registered with the kernel so paths can walk through it.
import { makeExo } from '@endo/exo';
import type { Hub, Kernel } from '../kernel/kernel.js';
import type { Instrument } from '../kernel/instrument.js';
import { interfacesFor } from '../interfaces.js';
import { bindingMethods } from './directory-new.js';
import { makeDirectoryOps } from './directory.js';
import { directoryDocs, docsFor, makeHelp } from '../help.js';
import type { FollowOut } from '../follow/far-follower.js';

export const makeDirectoryExo = (
  kernel: Kernel,
  instrument: Instrument,
  hub: Hub,
  formulateDirectory: () => string,
  follow: FollowOut,
  summary = 'A directory of pet names.',
): object => {
  const ops = makeDirectoryOps(kernel, hub, formulateDirectory, follow);
  const help = makeHelp(summary, docsFor(kernel.dialect, directoryDocs, false));
  const binding: Record<string, (...args: never[]) => unknown> = bindingMethods(kernel, ops);
  const exo = makeExo('EndoDirectory', interfacesFor(kernel.dialect).DirectoryInterface, {
    help: instrument('help', async (methodName?: string) => help(methodName)),
    has: instrument('has', ops.has),
    identify: instrument('identify', ops.identify),
    reverseIdentify: instrument('reverseIdentify', ops.reverseIdentify),
    locate: instrument('locate', ops.locate),
    reverseLocate: instrument('reverseLocate', ops.reverseLocate),
    followNameChanges: instrument('followNameChanges', ops.followNameChanges),
    followLocatorNameChanges: instrument('followLocatorNameChanges', ops.followLocatorNameChanges),
    list: instrument('list', ops.list),
    listIdentifiers: instrument('listIdentifiers', ops.listIdentifiers),
    lookup: instrument('lookup', ops.lookup),
    reverseLookup: instrument('reverseLookup', ops.reverseLookup),
    ...Object.fromEntries(Object.entries(binding).map(([name, fn]) => [name, instrument(name, fn)])),
    remove: instrument('remove', ops.remove),
    move: instrument('move', ops.move),
    copy: instrument('copy', ops.copy),
    makeDirectory: instrument('makeDirectory', ops.makeDirectory),
  });
  kernel.setHub(exo, hub);
  return exo;
};
harden(makeDirectoryExo);
