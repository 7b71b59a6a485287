/**
 * The Prometheus alerting rules that ship with `@svc/server`
 * (`prometheus/svc-alerts.yml`): promtool accepts them (`check rules`) and their
 * unit tests pass (`test rules prometheus/svc-alerts.test.yml`: each rule fires
 * on its series, after its `for`, and never on a follower's stale figures); every
 * metric they read is one the engine exports. promtool comes from
 * `node scripts/promtool.ts ensure` (Debian's prometheus package, extracted);
 * where it cannot be had the tests skip, and under CI they fail.
 */
import { assert, describe, it } from "@effect/vitest"
import { Metrics } from "@svc/core"
import { spawnSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { beforeAll } from "vitest"
import { parse } from "yaml"
import { ensure } from "../../../scripts/promtool.ts"

const DIR = fileURLToPath(new URL("../prometheus/", import.meta.url))
const RULES = `${DIR}svc-alerts.yml`

const isCi = (value: string | undefined = process.env.CI): boolean =>
  value !== undefined && !["", "0", "false"].includes(value.trim().toLowerCase())

let promtool: string | undefined
let why: string | undefined

beforeAll(() => {
  const found = ensure()
  promtool = found.path
  why = found.message
}, 300_000)

/** Runs promtool in the rules' folder, or skips (fails under CI) when there is none. */
const promtoolRun = (context: { readonly skip: (note?: string) => void }, args: ReadonlyArray<string>) => {
  if (promtool === undefined) {
    const reason = why ?? "no promtool"
    if (isCi()) {
      throw new Error(`${reason}; under CI (CI=${JSON.stringify(process.env.CI)}) the alert rules must be checked`)
    }
    context.skip(reason)
  }
  return spawnSync(promtool!, args, { cwd: DIR, encoding: "utf8" })
}

interface Rule {
  readonly alert: string
  readonly expr: string
  readonly labels?: Record<string, string>
  readonly annotations?: Record<string, string>
}

const rules = (parse(readFileSync(RULES, "utf8")) as { groups: Array<{ rules: Array<Rule> }> }).groups.flatMap((g) =>
  g.rules
)

describe("the alerting rules (prometheus/svc-alerts.yml)", () => {
  it("promtool check rules accepts them", (context) => {
    const result = promtoolRun(context, ["check", "rules", "svc-alerts.yml"])
    assert.strictEqual(result.status, 0, `${result.stdout}${result.stderr}`)
    assert.include(result.stdout, `SUCCESS: ${rules.length} rules found`)
  })

  it("promtool test rules: each fires on its series, after its delay, and not on a follower's", (context) => {
    const result = promtoolRun(context, ["test", "rules", "svc-alerts.test.yml"])
    assert.strictEqual(result.status, 0, `${result.stdout}${result.stderr}`)
    assert.include(result.stdout, "SUCCESS")
  })

  it("read only metrics the engine exports, cover what an operator must hear, and say how bad and what", () => {
    const exported = new Set(
      Object.values(Metrics).map((m) => `svc_${(m as { readonly id: string }).id}`)
    )
    const read = new Set(rules.flatMap((r) => [...r.expr.matchAll(/\bsvc_[a-z_]+/g)].map((m) => m[0])))
    assert.deepStrictEqual([...read].filter((name) => !exported.has(name)), [], "unknown metrics")
    for (
      const name of [
        "svc_leader",
        "svc_settlement_rpc_up",
        "svc_settlement_head_age_seconds",
        "svc_settlement_oldest_unpaid_seconds",
        "svc_settlement_oldest_in_flight_seconds",
        "svc_settlement_fee_at_ceiling",
        "svc_settlement_payout_gas_balance",
        "svc_settlement_vault_shortfall_raw",
        "svc_settlement_payouts_waiting_operator",
        "svc_settlement_payout_reverts_total",
        "svc_settlement_alerts_total"
      ]
    ) {
      assert.isTrue(read.has(name), `a rule reads ${name}`)
    }
    for (const rule of rules) {
      assert.match(rule.alert, /^Svc[A-Za-z]+$/)
      assert.include(["page", "warning"], rule.labels?.severity, rule.alert)
      assert.isString(rule.annotations?.summary, rule.alert)
      assert.isString(rule.annotations?.description, rule.alert)
    }
  })
})
