/**
 * The `svc` executable reproduces the Appendix A vectors byte for byte and keeps
 * the I/O contract: one JSON value and LF on stdout; exit 0 ok, 1 invalid, 2 bad
 * input with exactly one line on stderr and no stack trace.
 */
import { assert, describe, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { scaled } from "../../../test/support/time.ts"
import { svcAll } from "./support/svc.ts"

const ROOT = fileURLToPath(new URL("../../../", import.meta.url))
const BIN = join(ROOT, "packages/cli/src/bin.ts")
const vectors = JSON.parse(readFileSync(join(ROOT, "fixtures/upstream/appendix-a.json"), "utf8"))

const childEnv = () => ({
  ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("VITEST") && k !== "NODE_OPTIONS")),
  NO_COLOR: "1"
})

/** Runs `svc <args>` with `stdin` as input. */
const svc = (args: ReadonlyArray<string>, stdin?: string, env?: Record<string, string>) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { ...childEnv(), ...env },
      stdio: ["pipe", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (d) => (stdout += d))
    child.stderr.on("data", (d) => (stderr += d))
    child.on("close", (code) => resolve({ code, stdout, stderr }))
    child.stdin.end(stdin ?? "")
  })

const feed = {
  signedPayload: vectors.feed.signedPayload,
  feedHash: vectors.feed.feedHash,
  feedSignature: vectors.feed.feedSignature,
  feedSigner: vectors.feed.feedSigner
}

describe("svc executable", () => {
  it("reproduces the Appendix A vectors and keeps the output and exit-code contract", {
    timeout: scaled(60_000)
  }, async () => {
    const [canonical, hash, valid, expired, wrongSigner, message, raw, locator] = await Promise.all([
      svc(["canonical"], JSON.stringify(vectors.canonicalJson.input)),
      svc(["feed-hash", "-"], JSON.stringify(feed)),
      svc(["verify-feed", "--now", String(vectors.feed.validAt)], JSON.stringify({ ok: true, feed })),
      svc(["verify-feed", "--now", "2000000300"], JSON.stringify(feed)),
      svc([
        "verify-feed",
        "--now",
        String(vectors.feed.validAt),
        "--signer",
        "0x2222222222222222222222222222222222222222"
      ], JSON.stringify(feed)),
      svc(["permit-message"], JSON.stringify(vectors.permitRequestEvm.request)),
      svc(["permit-message", "--raw"], JSON.stringify(vectors.permitRequestEvm.request)),
      svc(["permit-message"], JSON.stringify(vectors.permitRequestLocator.request))
    ])
    assert.deepStrictEqual(canonical, {
      code: 0,
      stdout: `${JSON.stringify(vectors.canonicalJson.output)}\n`,
      stderr: ""
    })
    assert.deepStrictEqual(hash, {
      code: 0,
      stdout: `${JSON.stringify({ feedHash: vectors.feed.feedHash })}\n`,
      stderr: ""
    })
    assert.strictEqual(valid.code, 0)
    assert.deepStrictEqual(JSON.parse(valid.stdout), {
      valid: true,
      computedHash: vectors.feed.feedHash,
      expectedHash: vectors.feed.feedHash,
      recoveredSigner: vectors.feed.feedSigner,
      declaredSigner: vectors.feed.feedSigner,
      expectedSigner: vectors.feed.feedSigner,
      expired: false
    })
    assert.strictEqual(expired.code, 1)
    assert.strictEqual(JSON.parse(expired.stdout).expired, true)
    assert.strictEqual(wrongSigner.code, 1)
    assert.strictEqual(JSON.parse(wrongSigner.stdout).valid, false)
    assert.deepStrictEqual(message, {
      code: 0,
      stdout: `${JSON.stringify({ message: vectors.permitRequestEvm.message })}\n`,
      stderr: ""
    })
    assert.strictEqual(raw.stdout, vectors.permitRequestEvm.message)
    assert.strictEqual(JSON.parse(locator.stdout).message, vectors.permitRequestLocator.message)
  })

  it("bad input: exit 2, one line naming the field, no stack trace", { timeout: scaled(60_000) }, async () => {
    const cases = await Promise.all([
      svc(["canonical"], "{\"a\": 1.5}"),
      svc(["canonical"], "not json"),
      svc(["feed-hash"], "{\"schema\": \"OTHER\", \"routes\": []}"),
      svc(["permit-message"], JSON.stringify({ ...vectors.permitRequestEvm.request, quoteId: "0x12" })),
      svc(["ids"], JSON.stringify({ kind: "evmNetwork" })),
      svc(["canonical", "/nonexistent/file.json"]),
      svc(
        ["ids"],
        JSON.stringify([{ kind: "label", text: "x" }, { kind: "evmAccount", chainId: "1", address: "0x12" }])
      )
    ])
    for (const r of cases) {
      assert.strictEqual(r.code, 2, r.stderr)
      assert.strictEqual(r.stdout, "")
      const lines = r.stderr.trimEnd().split("\n")
      assert.strictEqual(lines.length, 1, r.stderr)
      assert.match(lines[0]!, /^svc: /)
      assert.notMatch(r.stderr, /\bat .*\.ts:\d+/, "no stack trace")
    }
    assert.match(cases[0]!.stderr, /\$\.a/)
    assert.match(cases[3]!.stderr, /quoteId/)
    assert.match(cases[4]!.stderr, /chainId/)
    assert.match(cases[6]!.stderr, /\[1\]\.address/, "the position of the bad request in the array")
  })

  // the refusals of `svc serve` (the full command line) in one process, one after another (support/svc.ts, svcAll)
  it("serve: a configuration that cannot start is one line naming the key, exit 2", {
    timeout: scaled(60_000)
  }, async () => {
    const dir = mkdtempSync(join(tmpdir(), "svc-cli-"))
    const onchain = join(dir, "onchain.json")
    writeFileSync(onchain, JSON.stringify({ facade: "nope" }))
    const base = { PORT: "0", SVC_DATA_DIR: dir }
    const cases = await svcAll([
      { args: ["serve"], env: { ...base, PORT: "99999" } },
      { args: ["serve"], env: { ...base, SVC_SIGNER_KEY: `0x${"0".repeat(64)}` } },
      { args: ["serve"], env: { ...base, SVC_ONCHAIN: onchain } },
      { args: ["serve"], env: { ...base, SVC_CATALOG: join(dir, "missing.json") } },
      // the production profile refuses the generated development key
      { args: ["serve"], env: { ...base, SVC_PROFILE: "production" } },
      // a database that cannot be reached: the setting and the driver's reason (replicas share one key)
      {
        args: ["serve"],
        env: {
          ...base,
          DATABASE_URL: "postgres://svc:secret-pw@127.0.0.1:1/svc",
          SVC_SIGNER_KEY: `0x${"1".repeat(64)}`
        }
      }
    ])
    const keys = ["PORT", "SVC_SIGNER_KEY", "SVC_ONCHAIN", "SVC_CATALOG", "SVC_SIGNER_KEYSTORE", "DATABASE_URL"]
    cases.forEach((r, i) => {
      assert.strictEqual(r.code, 2, r.stderr)
      const lines = r.stderr.trimEnd().split("\n")
      assert.strictEqual(lines.length, 1, r.stderr)
      assert.match(lines[0]!, new RegExp(`^svc: ${keys[i]}: `))
    })
    assert.notInclude(cases[1]!.stderr, "0".repeat(64), "the key is never shown")
    assert.include(cases[4]!.stderr, "production profile")
    assert.include(cases[5]!.stderr, "ECONNREFUSED 127.0.0.1:1")
    assert.notInclude(cases[5]!.stderr, "secret-pw", "the password is never shown")
  })

  it("plugins: the plug-ins a configuration chooses, the keys each reads and whether they are set", {
    timeout: scaled(60_000)
  }, async () => {
    // a folder of the operator's: a pricing plug-in beside it, @svc/core and effect installed
    const dir = realpathSync(mkdtempSync(join(tmpdir(), "svc-cli-plugins-")))
    for (const [name, target] of [["@svc/core", "packages/core"], ["effect", "node_modules/effect"]] as const) {
      mkdirSync(join(dir, "node_modules", name, ".."), { recursive: true })
      symlinkSync(realpathSync(join(ROOT, target)), join(dir, "node_modules", name))
    }
    copyFileSync(join(ROOT, "packages/server/test/fixtures/scaled-pricing.mjs"), join(dir, "scaled.mjs"))
    const [unset, set, absent] = await svcAll([
      { args: ["plugins"], env: { SVC_PRICING: "./scaled.mjs", SVC_DATA_DIR: dir } },
      { args: ["plugins"], env: { SVC_PRICING: "./scaled.mjs", SCALE_PERCENT: "150", SVC_DATA_DIR: dir } },
      { args: ["plugins"], env: { SVC_MARKET: "./absent.mjs", SVC_DATA_DIR: dir } }
    ], { cwd: dir })
    assert.strictEqual(unset!.code, 0, unset!.stderr)
    assert.strictEqual(
      unset!.stdout,
      [
        "SVC_STORE=sqlite          built-in: sqlite",
        "SVC_COORDINATION=store    built-in: the store's own (sqlite)",
        "SVC_PRICING=./scaled.mjs  scaled-pricing: reads SCALE_PERCENT (unset)",
        "SVC_MARKET=catalog        built-in: catalog",
        "SVC_SIGNER_PLUGIN=key     built-in: key",
        ""
      ].join("\n")
    )
    assert.include(set!.stdout, "scaled-pricing: reads SCALE_PERCENT (set)")
    // a plug-in that cannot be loaded: as at start, one line naming the setting
    assert.strictEqual(absent!.code, 2)
    assert.match(absent!.stderr, /^svc: SVC_MARKET: \.\/absent\.mjs: .* does not exist\n$/)
  })

  it("ids derives documented identifiers", { timeout: scaled(30_000) }, async () => {
    const r = await svc(
      ["ids"],
      JSON.stringify([{ kind: "evmNetwork", chainId: "8453" }, { kind: "label", text: "SVC_MAINNET_V6" }])
    )
    assert.strictEqual(r.code, 0)
    const [network, label] = JSON.parse(r.stdout)
    assert.strictEqual(network.vmType, "0x9c73caa427dcc7a3ba321dd9ec93943758502b982786658421fd1e094bf2b5f3")
    assert.strictEqual(label.hash, vectors.releaseId.value)
  })
})
