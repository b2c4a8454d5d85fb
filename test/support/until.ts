// Polling for a condition in tests that drive fae through a daemon: true
// once `check` holds, false after `timeoutMs`. Nothing is timed by it; the
// bound only keeps a broken run from hanging.
export const until = async (check: () => Promise<boolean>, timeoutMs = 30_000): Promise<boolean> => {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise(resolve => setTimeout(resolve, 20));
  }
  return false;
};
