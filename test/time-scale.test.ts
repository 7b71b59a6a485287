/**
 * The factor that stretches the suite's waits (test/support/time.ts): a factor
 * given or measured at the start is a floor, and a machine that became busier
 * since stretches the waits that follow.
 */
import { assert, describe, it } from "@effect/vitest"
import { measuredScale, timeScale } from "./support/time.ts"

describe("timeScale", () => {
  it("is at least the factor measured now, even below a factor set at the start", () => {
    // measuredScale is never below 1.5, so a start factor of 1 is always raised to the present one
    assert.isAtLeast(timeScale({ SVC_TEST_TIME_SCALE: "1" }), 1.5)
    assert.isAtLeast(timeScale({ SVC_TEST_TIME_SCALE: "1" }), Math.min(measuredScale(2), 10) - 0.5)
  })

  it("keeps a larger factor set at the start, and measures when none is set", () => {
    assert.strictEqual(timeScale({ SVC_TEST_TIME_SCALE: "50" }), 50)
    assert.isAtLeast(timeScale({}), 1.5)
    assert.isAtMost(timeScale({}), 10)
  })
})
