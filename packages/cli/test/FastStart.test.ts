/**
 * The protocol commands start fast (packages/cli/src/internal/fastPath.ts): in
 * their plain forms the executable runs them without effect/cli, the platform
 * layer or the server, and prints exactly what the effect/cli command tree
 * prints. Every case runs both ways, the fast start and the full command line
 * (Cli.ts, as with SVC_CLI_FAST=0), comparing stdout, stderr and the exit code:
 * all cases of a way in one process (support/batch.ts calls what src/bin.ts
 * calls), with a preload that records the modules the process loaded, to check
 * that the fast start of every fast case together loaded none of the heavy ones.
 * A few cases then run through the real executable both ways, as a person runs
 * it, and so does a closed standard output.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { scaled } from "../../../test/support/time.ts"
import { BIN, childEnv, ROOT } from "./support/svc.ts"

const PRELOAD = join(ROOT, "packages/cli/test/support/loaded-modules.ts")
const BATCH = join(ROOT, "packages/cli/test/support/batch.ts")
const vectors = JSON.parse(readFileSync(join(ROOT, "fixtures/upstream/appendix-a.json"), "utf8"))
const digestVectors = JSON.parse(readFileSync(join(ROOT, "fixtures/protocol/permit-digest/vectors.json"), "utf8"))
const abiVectors = JSON.parse(readFileSync(join(ROOT, "fixtures/protocol/abi/vectors.json"), "utf8"))

const dir = mkdtempSync(join(tmpdir(), "svc-fast-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const file = (name: string, content: string | Uint8Array) => {
  const path = join(dir, name)
  writeFileSync(path, content)
  return path
}

interface Outcome {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

interface Run extends Outcome {
  readonly loaded: ReadonlyArray<string>
}

let runs = 0
/** Runs `node --import <preload> <args>` with `stdin` as input; what it printed and the modules it loaded. */
const node = (args: ReadonlyArray<string>, stdin: string | Uint8Array, env: Record<string, string>) =>
  new Promise<Run>((resolve) => {
    const loadedFile = join(dir, `loaded-${runs++}.txt`)
    const child = spawn(process.execPath, ["--import", PRELOAD, ...args], {
      env: childEnv({ ...env, SVC_TEST_LOADED: loadedFile }),
      cwd: ROOT,
      stdio: ["pipe", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (d) => (stdout += d))
    child.stderr.on("data", (d) => (stderr += d))
    child.on(
      "close",
      (code) =>
        resolve({ code, stdout, stderr, loaded: readFileSync(loadedFile, "utf8").split("\n").filter((l) => l !== "") })
    )
    child.stdin.on("error", () => undefined) // a run that does not read its input
    child.stdin.end(stdin)
  })

/** Runs `svc <args>` (the real executable). */
const svc = (args: ReadonlyArray<string>, stdin: string | Uint8Array, env: Record<string, string>) =>
  node([BIN, ...args], stdin, env)

/** Runs every case one way in one process (support/batch.ts): what each printed, and what the process loaded. */
const batch = async (mode: "fast" | "full", cases: ReadonlyArray<Case>) => {
  const casesFile = file(
    `cases-${mode}.json`,
    JSON.stringify(cases.map((c) => ({
      args: c.args,
      stdin: Buffer.from(c.stdin ?? "").toString("base64")
    })))
  )
  const resultsFile = join(dir, `results-${mode}.json`)
  const ran = await node([BATCH, mode, casesFile, resultsFile], "", {})
  assert.strictEqual(ran.code, 0, `batch ${mode}: ${ran.stderr}`)
  return { results: JSON.parse(readFileSync(resultsFile, "utf8")) as ReadonlyArray<Outcome>, loaded: ran.loaded }
}

const feed = {
  signedPayload: vectors.feed.signedPayload,
  feedHash: vectors.feed.feedHash,
  feedSignature: vectors.feed.feedSignature,
  feedSigner: vectors.feed.feedSigner
}
const validAt = String(vectors.feed.validAt)
const request = vectors.permitRequestEvm.request
const digestCase = (digestVectors.cases as Array<any>).find((c) => typeof c.permitDigest === "string")
const abiCase = (abiVectors.cases as Array<any>).find((c) => typeof c.payload === "string")
const envelope = { permit: abiCase.permit, permitSignature: abiCase.permitSignature }
const { feeMode: _, serviceFeeBps: __, ...partialPermit } = digestCase.permit

const feedFile = file("feed.json", JSON.stringify(feed))
const requestFile = file("request.json", JSON.stringify(request))
const permitFile = file("permit.json", JSON.stringify(digestCase.permit))

interface Case {
  readonly args: ReadonlyArray<string>
  readonly stdin?: string | Uint8Array
  /** Whether the fast start runs it (else it is left to Cli.ts). */
  readonly fast: boolean
}

const CASES: ReadonlyArray<Case> = [
  // canonical: stdin, `-`, a file; the refusals
  { args: ["canonical"], stdin: JSON.stringify(vectors.canonicalJson.input), fast: true },
  { args: ["canonical", "-"], stdin: "{\"b\": [1, {\"d\": null, \"c\": \"\\u00e9\"}], \"a\": true}", fast: true },
  { args: ["canonical", file("canonical.json", "\uFEFF{\"z\": \"\u2028\", \"y\": -0}")], fast: true },
  {
    args: ["canonical"],
    stdin: Uint8Array.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xc3, 0x22, 0x7d]),
    fast: true
  },
  { args: ["canonical"], stdin: "{\"a\": 1.5}", fast: true },
  { args: ["canonical"], stdin: "not json", fast: true },
  { args: ["canonical"], stdin: "", fast: true },
  { args: ["canonical"], stdin: "[1, {\"a\": 9007199254740993}]", fast: true },
  // left to Cli.ts: an unreadable file, two paths, --help, a flag it does not have
  { args: ["canonical", "/nonexistent/file.json"], fast: false },
  { args: ["canonical", dir], fast: false },
  { args: ["canonical", feedFile, feedFile], fast: false },
  { args: ["canonical", "--help"], fast: false },
  { args: ["canonical", "--raw"], stdin: "{}", fast: false },
  { args: ["canonical", "--", feedFile], fast: false },
  // feed-hash
  { args: ["feed-hash", "-"], stdin: JSON.stringify(feed), fast: true },
  { args: ["feed-hash", feedFile], fast: true },
  { args: ["feed-hash"], stdin: JSON.stringify({ ok: true, feed }), fast: true },
  { args: ["feed-hash"], stdin: "{\"schema\": \"OTHER\", \"routes\": []}", fast: true },
  // verify-feed: valid, expired (exit 1), another signer, a malformed signer, flags in any order
  { args: ["verify-feed", "--now", validAt], stdin: JSON.stringify({ ok: true, feed }), fast: true },
  { args: ["verify-feed", feedFile, "--now", "2000000300"], fast: true },
  {
    args: ["verify-feed", "--signer", "0x2222222222222222222222222222222222222222", "--now", validAt, feedFile],
    fast: true
  },
  { args: ["verify-feed", "--now", validAt, "--signer", "nope"], stdin: JSON.stringify(feed), fast: true },
  { args: ["verify-feed", "--now", validAt], stdin: JSON.stringify({ ...feed, feedSignature: "0x12" }), fast: true },
  { args: ["verify-feed", feedFile], fast: true },
  { args: ["verify-feed", "--now", "0", "-"], stdin: "[]", fast: true },
  // left to Cli.ts: --now=, a --now effect/cli reads (or refuses) in its own way, a repeated or missing value
  { args: ["verify-feed", `--now=${validAt}`, feedFile], fast: false },
  { args: ["verify-feed", "--now", "abc", feedFile], fast: false },
  { args: ["verify-feed", "--now", "-5", feedFile], fast: false },
  { args: ["verify-feed", "--now", "1", "--now", "2", feedFile], fast: false },
  { args: ["verify-feed", feedFile, "--now"], fast: false },
  // permit-message
  { args: ["permit-message"], stdin: JSON.stringify(request), fast: true },
  { args: ["permit-message", "--raw", requestFile], fast: true },
  { args: ["permit-message", requestFile, "--raw"], fast: true },
  { args: ["permit-message"], stdin: JSON.stringify(vectors.permitRequestLocator.request), fast: true },
  { args: ["permit-message"], stdin: JSON.stringify({ ...request, quoteId: "0x12" }), fast: true },
  { args: ["permit-message"], stdin: "[]", fast: true },
  // left to Cli.ts: a boolean literal after --raw (effect/cli reads it as the flag's value), --no-raw
  { args: ["permit-message", "--raw", "true"], stdin: JSON.stringify(request), fast: false },
  { args: ["permit-message", "--no-raw", requestFile], fast: false },
  // permit-digest: 35 fields, 31 fields, an envelope; refusals
  { args: ["permit-digest", permitFile], fast: true },
  {
    args: ["permit-digest"],
    stdin: JSON.stringify({ ok: true, permit: { permit: digestCase.permit, permitSignature: "0x" } }),
    fast: true
  },
  { args: ["permit-digest"], stdin: JSON.stringify({ permit: {} }), fast: true },
  { args: ["permit-digest"], stdin: JSON.stringify(partialPermit), fast: true },
  { args: ["permit-digest"], stdin: JSON.stringify({ ...digestCase.permit, amountInRaw: "0x12" }), fast: true },
  // encode-permit
  { args: ["encode-permit"], stdin: JSON.stringify(envelope), fast: true },
  { args: ["encode-permit"], stdin: JSON.stringify({ ...envelope, permitSignature: "0x1234" }), fast: true },
  {
    args: ["encode-permit"],
    stdin: JSON.stringify({ ...envelope, permit: { ...envelope.permit, extra: 1 } }),
    fast: true
  },
  // ids
  {
    args: ["ids"],
    stdin: JSON.stringify([
      { kind: "evmNetwork", chainId: "8453" },
      { kind: "label", text: "SVC_MAINNET_V6" },
      { kind: "evmAccount", chainId: 1, address: "0x2222222222222222222222222222222222222222" },
      { kind: "solanaNetwork" },
      {
        kind: "quote",
        routeId: `0x${"11".repeat(32)}`,
        pricingReferenceId: `0x${"22".repeat(32)}`,
        validAfter: "1",
        validUntil: 2,
        executionGeneration: `0x${"33".repeat(32)}`,
        policyHash: `0x${"44".repeat(32)}`
      }
    ]),
    fast: true
  },
  { args: ["ids"], stdin: JSON.stringify({ kind: "evmNetwork" }), fast: true },
  { args: ["ids"], stdin: JSON.stringify({ kind: "nope" }), fast: true },
  {
    args: ["ids"],
    stdin: JSON.stringify([{ kind: "label", text: "x" }, { kind: "evmAccount", chainId: "1", address: "0x12" }]),
    fast: true
  },
  // not protocol commands: Cli.ts
  { args: ["--version"], fast: false },
  { args: ["nope"], fast: false }
]

const CLI_TS = "/packages/cli/src/Cli.ts"
/** What the fast start must never load. */
const HEAVY = [CLI_TS, "/effect/dist/cli/", "/@effect/platform-node", "/packages/server/", "/node_modules/viem/"]

/** Whether the modules loaded include one the fast start must never load; effect's index counts. */
const heavyIn = (loaded: ReadonlyArray<string>) =>
  loaded.filter((url) => HEAVY.some((h) => url.includes(h)) || url.endsWith("/effect/dist/index.js"))

describe("fast start of the protocol commands", () => {
  it(
    "prints what the full command line prints, loading neither effect/cli nor the server",
    { timeout: scaled(120_000) },
    async () => {
      const [fast, full] = await Promise.all([batch("fast", CASES), batch("full", CASES)])
      assert.strictEqual(fast.results.length, CASES.length)
      assert.strictEqual(full.results.length, CASES.length)
      assert.isTrue(full.loaded.some((url) => url.endsWith(CLI_TS)), "the full way runs Cli.ts")
      CASES.forEach((c, i) => {
        const what = `svc ${c.args.join(" ")}`
        const [f, g] = [fast.results[i]!, full.results[i]!]
        if (c.fast) {
          assert.deepStrictEqual(f, g, what)
        } else {
          // left to Cli.ts: the fast start answers nothing and writes nothing, and bin.ts runs Cli.ts
          assert.deepStrictEqual(f, { code: null, stdout: "", stderr: "" }, `${what}: left to Cli.ts`)
        }
      })
      // effect is loaded module by module (the permit commands' schemas included), never through its index
      assert.deepStrictEqual(heavyIn(fast.loaded), [], "the fast start of every case together loads none of these")
      // the cases cover success, exit 1 and refusals on both ways
      const codes = new Set(CASES.flatMap((c, i) => c.fast ? [fast.results[i]!.code] : []))
      assert.deepStrictEqual([...codes].sort(), [0, 1, 2])
    }
  )

  it(
    "the executable: an invalid feed, a refusal and a form left to Cli.ts print the same both ways",
    { timeout: scaled(60_000) },
    async () => {
      const picked: ReadonlyArray<Case> = [
        CASES.find((c) => c.args.join(" ") === `verify-feed ${feedFile} --now 2000000300`)!,
        CASES.find((c) => c.stdin === "not json")!,
        CASES.find((c) => c.args.includes("--help"))!
      ]
      for (const c of picked) {
        const what = `svc ${c.args.join(" ")}`
        const [fast, full] = await Promise.all([
          svc(c.args, c.stdin ?? "", {}),
          svc(c.args, c.stdin ?? "", { SVC_CLI_FAST: "0" })
        ])
        assert.isTrue(full.loaded.some((url) => url.endsWith(CLI_TS)), `${what}: SVC_CLI_FAST=0 runs Cli.ts`)
        assert.deepStrictEqual(
          { code: fast.code, stdout: fast.stdout, stderr: fast.stderr },
          { code: full.code, stdout: full.stdout, stderr: full.stderr },
          what
        )
        if (c.fast) assert.deepStrictEqual(heavyIn(fast.loaded), [], `${what}: the fast start loads none of these`)
        else assert.isTrue(fast.loaded.some((url) => url.endsWith(CLI_TS)), `${what}: left to Cli.ts`)
      }
      assert.deepStrictEqual(picked.map((c) => c.fast), [true, true, false])
    }
  )

  it("a closed standard output: the line and the exit code of the full command line", {
    timeout: scaled(60_000)
  }, async () => {
    // more than a pipe holds, to a pipe whose reading end is closed
    const big = file("big.json", JSON.stringify(Array.from({ length: 50_000 }, (_, i) => ({ k: "x".repeat(20), i }))))
    const closed = (env: Record<string, string>) =>
      new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, [BIN, "canonical", big], {
          env: childEnv(env),
          cwd: ROOT,
          stdio: ["ignore", "pipe", "pipe"]
        })
        child.stdout.destroy()
        let stderr = ""
        child.stderr.on("data", (d) => (stderr += d))
        child.on("close", (code) => resolve({ code, stderr }))
      })
    const [fast, full] = await Promise.all([closed({}), closed({ SVC_CLI_FAST: "0" })])
    assert.deepStrictEqual(fast, full)
    assert.strictEqual(fast.code, 70)
  })
})
