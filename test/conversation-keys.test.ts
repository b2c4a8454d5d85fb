// Conversation keys name what is stored in fae's directory, so they must
// never change from one version of fae to the next: these were computed by
// the first implementation of the hash (BigInt arithmetic).
import test from 'ava';
import { conversationKey, correspondentPrefix } from '../src/conversations/threads.js';

test('conversation keys are those fae has always stored under', t => {
  t.is(conversationKey('', 'main'), 'cbf29ce484222325-1f5962a2ce9803c8');
  t.is(conversationKey(`${'a'.repeat(64)}:${'b'.repeat(64)}`, 'main'), '52af5c01d1ae63ed-1f5962a2ce9803c8');
  t.is(conversationKey('héllo wörld ✓ 𝄞', 'sha512-thread-root'), 'e5f6a052abb4649b-97167bd281bdfcf9');
  t.is(conversationKey('x', '\uffff\u0000'), 'af63f54c86021707-7f4fa609cd1eacea');
  t.is(correspondentPrefix('x'), 'af63f54c86021707-');
});
