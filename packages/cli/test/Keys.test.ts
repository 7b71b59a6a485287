/**
 * Keys in keystores: `svc keys new|import|address` write and read Web3 Secret
 * Storage v3 files that ethers reads (and read ethers' files); the password
 * comes from a file, never the command line. `svc serve` takes the authority
 * key from SVC_SIGNER_KEYSTORE and the EVM connector the payout key from
 * SVC_PAYOUT_KEYSTORE; the production profile refuses raw keys unless
 * SVC_ALLOW_RAW_KEYS=1; DATABASE_URL refuses a generated development key.
 */
import { assert, describe, it } from "@effect/vitest"
import { plugin } from "@svc/connector-evm/EvmPlugin"
import { Connector } from "@svc/core"
import { ConfigProvider, Effect } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { scaled } from "../../../test/support/time.ts"
import { BIN, childEnv, oneLineRefusal, ROOT, svc, svcAll } from "./support/svc.ts"

/** ethers, as the example wallet installs it (examples/ethers-wallet): an implementation that is not svc's. */
const ethers = createRequire(join(ROOT, "examples/ethers-wallet/package.json"))("ethers") as {
  decryptKeystoreJsonSync: (json: string, password: string) => { address: string; privateKey: string }
  encryptKeystoreJsonSync: (
    account: { address: string; privateKey: string },
    password: string,
    options: { scrypt: { N: number } }
  ) => string
  Wallet: new(key: string) => { address: string }
}

const KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"
const ADDRESS = new ethers.Wallet(KEY).address

const dir = mkdtempSync(join(tmpdir(), "svc-keys-"))
const password = join(dir, "password")
writeFileSync(password, "correct horse\n")

describe("svc keys", () => {
  it("new, import and address; ethers reads the files, svc reads ethers' files", {
    timeout: scaled(60_000)
  }, async () => {
    const made = await svc(["keys", "new", "--out", "k/new.json", "--password-file", password, "--scrypt-n", "1024"], {
      cwd: dir
    })
    assert.strictEqual(made.code, 0, made.stderr)
    const created = JSON.parse(made.stdout)
    assert.deepStrictEqual(Object.keys(created), ["address", "keystore"])
    assert.strictEqual(created.keystore, join(dir, "k/new.json"))
    assert.strictEqual(statSync(created.keystore).mode & 0o777, 0o600, "owner-only")
    const opened = ethers.decryptKeystoreJsonSync(readFileSync(created.keystore, "utf8"), "correct horse")
    assert.strictEqual(opened.address, created.address)

    // import: the key from standard input, the password file from SVC_KEYSTORE_PASSWORD_FILE
    const imported = await svc(["keys", "import", "--out", "imported.json", "--scrypt-n", "1024"], {
      cwd: dir,
      stdin: `${KEY}\n`,
      env: { SVC_KEYSTORE_PASSWORD_FILE: password }
    })
    assert.strictEqual(imported.code, 0, imported.stderr)
    assert.deepStrictEqual(JSON.parse(imported.stdout), { address: ADDRESS, keystore: join(dir, "imported.json") })
    const back = ethers.decryptKeystoreJsonSync(readFileSync(join(dir, "imported.json"), "utf8"), "correct horse")
    assert.deepStrictEqual([back.address, back.privateKey], [ADDRESS, KEY])

    // a file written by ethers (its "Crypto" key): svc reads its address, and the server unlocks it below
    writeFileSync(
      join(dir, "ethers.json"),
      ethers.encryptKeystoreJsonSync({ address: ADDRESS, privateKey: KEY }, "correct horse", { scrypt: { N: 1024 } })
    )
    writeFileSync(join(dir, "empty"), "")
    const [address, ...refusals] = await svcAll([
      { args: ["keys", "address", "ethers.json"] },
      // no password file anywhere; one that exists is never overwritten; a bad key on standard input; an empty password file
      { args: ["keys", "new", "--out", "x.json"], env: { SVC_KEYSTORE_PASSWORD_FILE: "" } },
      { args: ["keys", "new", "--out", "imported.json", "--password-file", password] },
      { args: ["keys", "import", "--out", "y.json", "--password-file", password], stdin: "0x1234" },
      { args: ["keys", "new", "--out", "z.json", "--password-file", "empty"] },
      { args: ["keys", "address", "missing.json"] }
    ], { cwd: dir })
    assert.strictEqual(address!.code, 0, address!.stderr)
    assert.strictEqual(JSON.parse(address!.stdout).address, ADDRESS)
    const lines = refusals.map(oneLineRefusal)
    assert.match(lines[0]!, /^svc: --password-file: required \(or set SVC_KEYSTORE_PASSWORD_FILE\)/)
    assert.match(lines[1]!, /^svc: --out .*imported\.json: the file exists; a keystore is never overwritten$/)
    assert.match(lines[2]!, /^svc: standard input: a private key is 0x followed by 64 hex digits \(value not shown\)$/)
    assert.strictEqual(lines[3], "svc: password file empty: empty")
    assert.match(lines[4]!, /^svc: keystore .*missing\.json: cannot read/)
    assert.deepStrictEqual(
      JSON.parse(readFileSync(join(dir, "imported.json"), "utf8")).address,
      ADDRESS.slice(2).toLowerCase()
    )
  })
})

/** Starts `svc serve` and resolves with its first two stdout lines, or rejects with its stderr. */
const serve = (env: Record<string, string>) =>
  new Promise<{ child: ChildProcess; lines: Array<string> }>((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, "serve"], {
      env: childEnv({ PORT: "0", HOST: "127.0.0.1", SVC_LOG_LEVEL: "warning", ...env }),
      cwd: dir,
      stdio: ["ignore", "pipe", "pipe"]
    })
    let out = ""
    let err = ""
    child.stdout.on("data", (d) => {
      out += d
      const lines = out.split("\n")
      if (lines.length > 2) resolve({ child, lines: lines.slice(0, 2) })
    })
    child.stderr.on("data", (d) => (err += d))
    child.once("exit", (code) => reject(new Error(`svc serve exited ${code}: ${err}`)))
  })

describe("svc serve with keystores", () => {
  const keystore = join(dir, "authority.json")
  const payout = join(dir, "payout.json")
  const wrong = join(dir, "wrong-password")
  writeFileSync(wrong, "wrong\n")
  writeFileSync(
    keystore,
    ethers.encryptKeystoreJsonSync({ address: ADDRESS, privateKey: KEY }, "correct horse", { scrypt: { N: 1024 } })
  )
  const payoutKey = "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a"
  writeFileSync(
    payout,
    ethers.encryptKeystoreJsonSync(
      { address: new ethers.Wallet(payoutKey).address, privateKey: payoutKey },
      "correct horse",
      { scrypt: { N: 1024 } }
    )
  )

  it(
    "refusals: raw keys in production, a keystore without its password, a wrong password, a development key with DATABASE_URL",
    {
      timeout: scaled(60_000)
    },
    async () => {
      const base = { PORT: "0", SVC_DATA_DIR: join(dir, "refused"), SVC_LOG_LEVEL: "none" }
      const production = { ...base, SVC_PROFILE: "production" }
      const withKeystore = { SVC_SIGNER_KEYSTORE: keystore, SVC_KEYSTORE_PASSWORD_FILE: password }
      const cases = await svcAll([
        { args: ["serve"], env: { ...production, SVC_SIGNER_KEY: KEY } },
        { args: ["serve"], env: { ...production, ...withKeystore, SVC_PAYOUT_KEY: payoutKey } },
        { args: ["serve"], env: { ...base, SVC_SIGNER_KEYSTORE: keystore } },
        { args: ["serve"], env: { ...base, ...withKeystore, SVC_KEYSTORE_PASSWORD_FILE: wrong } },
        { args: ["serve"], env: { ...base, ...withKeystore, SVC_SIGNER_KEY: KEY } },
        { args: ["serve"], env: { ...base, DATABASE_URL: "postgres://svc@127.0.0.1:1/svc" } },
        { args: ["serve"], env: { ...production } }
      ], { cwd: dir })
      const lines = cases.map(oneLineRefusal)
      assert.match(
        lines[0]!,
        /^svc: SVC_SIGNER_KEY: the production profile takes keys from encrypted keystores \(SVC_SIGNER_KEYSTORE, .*SVC_ALLOW_RAW_KEYS=1/
      )
      assert.match(
        lines[1]!,
        /^svc: SVC_PAYOUT_KEY: the production profile takes keys from encrypted keystores \(SVC_PAYOUT_KEYSTORE/
      )
      assert.match(lines[2]!, /^svc: SVC_KEYSTORE_PASSWORD_FILE: required with SVC_SIGNER_KEYSTORE/)
      assert.match(lines[3]!, /^svc: SVC_SIGNER_KEYSTORE: .*authority\.json: wrong password/)
      assert.match(lines[4]!, /^svc: SVC_SIGNER_KEYSTORE: give SVC_SIGNER_KEY or SVC_SIGNER_KEYSTORE, not both$/)
      assert.match(lines[5]!, /^svc: SVC_SIGNER_KEYSTORE: with DATABASE_URL every replica signs with one authority key/)
      assert.match(lines[6]!, /^svc: SVC_SIGNER_KEYSTORE: the production profile needs the authority's own key/)
      for (const line of lines) {
        assert.notInclude(line, KEY.slice(2))
        assert.notInclude(line, payoutKey.slice(2))
        assert.notInclude(line, "correct horse")
      }
    }
  )

  it("the production profile signs with the keystore's key, or a raw key with SVC_ALLOW_RAW_KEYS=1", {
    timeout: scaled(90_000)
  }, async () => {
    const started = await Promise.all([
      serve({
        SVC_PROFILE: "production",
        SVC_DATA_DIR: join(dir, "a"),
        SVC_SIGNER_KEYSTORE: keystore,
        SVC_KEYSTORE_PASSWORD_FILE: password
      }),
      serve({ SVC_PROFILE: "production", SVC_DATA_DIR: join(dir, "b"), SVC_SIGNER_KEY: KEY, SVC_ALLOW_RAW_KEYS: "1" })
    ])
    try {
      for (const { lines } of started) {
        assert.match(lines[0]!, /^svc listening on http:\/\/127\.0\.0\.1:\d+$/)
        assert.strictEqual(lines[1], `svc authority ${ADDRESS}`, "not a development key")
      }
    } finally {
      for (const { child } of started) child.kill("SIGTERM")
    }
  })

  it.effect(
    "the EVM connector unlocks SVC_PAYOUT_KEYSTORE; a wrong password, no password file or both forms are refused",
    () =>
      Effect.gen(function*() {
        const context: Connector.PluginContext = { networks: [] }
        const register = (settings: Record<string, string>) =>
          Connector.registrationsOf(plugin, context).pipe(
            Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromUnknown(settings)),
            Effect.map((registrations) => registrations.length),
            Effect.catch((e) => Effect.succeed(e.message))
          )
        assert.strictEqual(
          yield* register({ SVC_PAYOUT_KEYSTORE: payout, SVC_KEYSTORE_PASSWORD_FILE: password }),
          1
        )
        assert.match(
          String(yield* register({ SVC_PAYOUT_KEYSTORE: payout, SVC_KEYSTORE_PASSWORD_FILE: wrong })),
          /^SVC_PAYOUT_KEYSTORE: .*payout\.json: wrong password/
        )
        assert.match(
          String(yield* register({ SVC_PAYOUT_KEYSTORE: payout })),
          /^SVC_KEYSTORE_PASSWORD_FILE: required with SVC_PAYOUT_KEYSTORE/
        )
        assert.match(
          String(
            yield* register({
              SVC_PAYOUT_KEYSTORE: payout,
              SVC_KEYSTORE_PASSWORD_FILE: password,
              SVC_PAYOUT_KEY: payoutKey
            })
          ),
          /^SVC_PAYOUT_KEYSTORE: give SVC_PAYOUT_KEY or SVC_PAYOUT_KEYSTORE, not both$/
        )
        assert.match(
          String(
            yield* register({ SVC_PAYOUT_KEYSTORE: join(dir, "nope.json"), SVC_KEYSTORE_PASSWORD_FILE: password })
          ),
          /^SVC_PAYOUT_KEYSTORE: cannot read /
        )
      }),
    { timeout: scaled(30_000) }
  )
})
