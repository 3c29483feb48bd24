/** An operation the bridge will not perform, with the reason shown to the user. */
export class Refusal extends Error {
  constructor(
    readonly reason: 'cannot' | 'nonexistent' | 'unavailable',
    message: string,
  ) {
    super(message);
    this.name = 'Refusal';
  }
}
