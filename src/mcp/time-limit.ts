/**
 * Waits for `promise` at most `ms`: undefined when the time ran out first. The timer is
 * cleared as soon as the promise settles, so a wait that ended never keeps the process up.
 */
export function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)));
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
