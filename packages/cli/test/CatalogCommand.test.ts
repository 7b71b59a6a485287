/**
 * `svc catalog check FILE`: a valid catalog (JSON or YAML) is exit 0 with its
 * counts; a catalog with problems prints every problem with its JSON path and
 * exits 2 with one line; `svc serve` refuses the same catalog at start, with
 * the same problems on its one line.
 */
import { assert, describe, it } from "@effect/vitest"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { scaled } from "../../../test/support/time.ts"
import { ROOT, svcAll } from "./support/svc.ts"

const demo = JSON.parse(readFileSync(join(ROOT, "packages/server/catalog/demo.json"), "utf8"))

describe("svc catalog check", () => {
  it("valid: exit 0 and the counts; problems: every one with its path, exit 2; svc serve refuses it", {
    timeout: scaled(60_000)
  }, async () => {
    const dir = mkdtempSync(join(tmpdir(), "svc-catalog-check-"))
    // YAML (a comment, then JSON, which YAML includes): read by the YAML parser, not JSON.parse
    writeFileSync(join(dir, "demo.yaml"), `# the demo catalog\n${JSON.stringify(demo, null, 2)}\n`)
    const bad = structuredClone(demo)
    bad.assets[0].decimals = 80
    bad.routes[0].serviceFeeBps = 12_000
    bad.routes[1].source = "dai.base"
    delete bad.networks[1].vault
    writeFileSync(join(dir, "bad.json"), JSON.stringify(bad))
    const [valid, invalid, missing, serve] = await svcAll([
      { args: ["catalog", "check", "demo.yaml"] },
      { args: ["catalog", "check", "bad.json"] },
      { args: ["catalog", "check", "nope.json"] },
      {
        args: ["serve"],
        env: { PORT: "0", SVC_DATA_DIR: join(dir, "data"), SVC_CATALOG: join(dir, "bad.json"), SVC_PROFILE: "demo" }
      }
    ], { cwd: dir })
    assert.strictEqual(valid!.code, 0, valid!.stderr)
    assert.deepStrictEqual(JSON.parse(valid!.stdout), {
      file: join(dir, "demo.yaml"),
      valid: true,
      problems: [],
      networks: 4,
      assets: 6,
      routes: 8
    })
    const expected = [
      "$.networks[1].vault: Missing key",
      "$.assets[0].decimals: Expected a value between 0 and 78",
      "$.routes[0].serviceFeeBps: Expected a value between 0 and 10000",
      "$.routes[0].destination: usdt.bsc is on network bsc, which has no vault",
      "$.routes[1].source: no asset dai.base in assets",
      "$.routes[4].source: usdt.bsc is on network bsc, which has no vault",
      "$.routes[5].destination: usdc.bsc is on network bsc, which has no vault",
      "$.routes[6].destination: usdt.bsc is on network bsc, which has no vault"
    ]
    assert.strictEqual(invalid!.code, 2)
    const report = JSON.parse(invalid!.stdout)
    assert.strictEqual(report.valid, false)
    assert.deepStrictEqual(
      report.problems.map((p: { path: string; message: string }) => `${p.path}: ${p.message}`),
      expected
    )
    assert.strictEqual(invalid!.stderr, `svc: ${join(dir, "bad.json")}: 8 problems: ${expected.join("; ")}\n`)
    assert.strictEqual(missing!.code, 2)
    assert.match(missing!.stderr, /^svc: catalog: cannot read .*nope\.json\n$/)
    assert.strictEqual(serve!.code, 2)
    assert.strictEqual(
      serve!.stderr,
      `svc: SVC_CATALOG: ${join(dir, "bad.json")}: 8 problems: ${expected.join("; ")}\n`
    )
    assert.notInclude(serve!.stdout, "listening")
  })
})
