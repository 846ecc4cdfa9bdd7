// Requests that each need work done before they can be sent (a fresh authorization code and
// state for a Google callback; a fresh AuthnRequest and a response signed for it for the SAML
// consumer): made ahead, before each chunk and outside its measurement, and taken one per request.

/** Made ahead for this many requests per second of load until a faster rate is seen. */
const FIRST_GUESS_PER_SECOND = 300;
/** Stock for twice the fastest rate seen, so a faster second does not run it dry. */
const HEADROOM = 2;

export class Prepared {
  /**
   * @param {() => Promise<string>} make one request's body
   * @param {{ inFlight?: number }} options how many to make at once (and the load's concurrency)
   */
  constructor(make, { inFlight = 8 } = {}) {
    this.make = make;
    this.inFlight = inFlight;
    this.stock = [];
    this.perSecond = FIRST_GUESS_PER_SECOND;
    this.taken = 0;
    this.starved = 0;
    this.lastSeconds = 0;
    this.last = undefined;
  }

  /**
   * The next body. When none is left, the last one again: its answer (a spent state, a replayed
   * assertion) is unexpected and voids the load, as it should, since the load was not measured.
   */
  take() {
    const body = this.stock.shift();
    if (body === undefined) {
      this.starved += 1;
      return this.last;
    }
    this.taken += 1;
    this.last = body;
    return body;
  }

  /** Tops the stock up for `seconds` of load at the fastest rate seen so far. */
  async fill(seconds) {
    if (this.lastSeconds > 0) {
      this.perSecond = Math.max(this.perSecond, this.taken / this.lastSeconds);
      if (this.starved > 0) this.perSecond *= 2;
    }
    this.taken = 0;
    this.starved = 0;
    this.lastSeconds = seconds;
    const wanted = Math.ceil(this.perSecond * seconds * HEADROOM) + 4 * this.inFlight;
    const worker = async () => {
      while (this.stock.length < wanted) this.stock.push(await this.make());
    };
    await Promise.all(Array.from({ length: this.inFlight }, worker));
  }
}
