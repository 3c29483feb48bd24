/**
 * Which IMAP sessions are running a command handler right now: at shutdown a session is
 * only dismissed between commands, so a FETCH or APPEND in progress can finish.
 */
const running = new WeakMap<object, number>();

export function trackActivity<T>(session: object, work: Promise<T>): Promise<T> {
  running.set(session, (running.get(session) ?? 0) + 1);
  const done = () => running.set(session, (running.get(session) ?? 1) - 1);
  work.then(done, done);
  return work;
}

export function isActive(session: object): boolean {
  return (running.get(session) ?? 0) > 0;
}
