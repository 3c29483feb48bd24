/** The open connections of a listener that is shutting down. */
export interface Draining<C> {
  connections(): Iterable<C>;
  /** True while the connection transfers a message or runs a command. */
  busy(connection: C): boolean;
  /** Says goodbye (IMAP BYE, SMTP 421) and closes the connection. */
  dismiss(connection: C): void;
}

const pollMs = 50;

/**
 * Dismisses each connection as soon as it has nothing in progress, until `closed` settles
 * (the listener's own close, which dismisses whatever is left once the drain time is up).
 */
export async function dismissWhenIdle<C>(listener: Draining<C>, closed: Promise<void>): Promise<void> {
  let done = false;
  void closed.finally(() => {
    done = true;
  });
  while (!done) {
    for (const connection of [...listener.connections()]) if (!listener.busy(connection)) listener.dismiss(connection);
    await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, pollMs))]);
  }
}
