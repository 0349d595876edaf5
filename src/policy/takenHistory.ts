/** How long a history of answers the rate a cut starts from is measured over, and in what steps. */
const STEP_MS = 200;
const STEPS = 10;
/** The steps in one second: the rate the server took is its busiest second in the history. */
const SECOND = 1000 / STEP_MS;

/** The attempts a server took (answered other than with a refusal) over the last two seconds, in steps of 200 ms. */
export class TakenHistory {
  /** Answers per step, a ring of the last STEPS steps, and the step last written. */
  private readonly taken = new Array<number>(STEPS).fill(0);
  private step = 0;

  /** Counts one attempt the server took. */
  count(now: number): void {
    this.advance(now);
    this.taken[this.step % STEPS]!++;
  }

  /** The most attempts the server took in one second (SECOND consecutive steps) of the last two. */
  busiestSecond(now: number): number {
    this.advance(now);
    let best = 0;
    for (let end = 0; end + SECOND <= STEPS; end++) {
      let sum = 0;
      for (let i = 0; i < SECOND; i++) sum += this.taken[(this.step - end - i + STEPS * 2) % STEPS]!;
      best = Math.max(best, sum);
    }
    return best;
  }

  /** Moves the ring to the step of `now`, emptying the steps passed. */
  private advance(now: number): void {
    const step = Math.floor(now / STEP_MS);
    for (let s = Math.max(this.step + 1, step - STEPS + 1); s <= step; s++) this.taken[s % STEPS] = 0;
    if (step > this.step) this.step = step;
  }
}
