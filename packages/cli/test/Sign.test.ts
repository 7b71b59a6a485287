/**
 * `svc sign`: the EIP-191 (personal_sign) signature of a message by a local test
 * key, the message taken from a JSON answer that carries it or, otherwise, the
 * input bytes exactly as read. The command lines of a test run one after another
 * in one process of the full command line (support/svc.ts, svcAll).
 */
import { assert, describe, it } from "@effect/vitest"
import { PermitMessage, Signature } from "@svc/protocol"
import { Result } from "effect"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { getAddress } from "viem"
import { scaled } from "../../../test/support/time.ts"
import { oneLineRefusal, ROOT, svcAll } from "./support/svc.ts"

const vectors = JSON.parse(readFileSync(join(ROOT, "fixtures/upstream/appendix-a.json"), "utf8"))
/** The public test key of the Appendix A vectors (never funded). */
const KEY: `0x${string}` = vectors.testKey.privateKey
const ADDRESS: string = vectors.testKey.address
const MESSAGE: string = vectors.permitRequestEvm.message

const signed = (r: { code: number | null; stdout: string; stderr: string }) => {
  assert.strictEqual(r.code, 0, r.stderr)
  assert.strictEqual(r.stderr, "")
  assert.isTrue(r.stdout.endsWith("}\n") && r.stdout.split("\n").length === 2, "one JSON value and LF")
  return JSON.parse(r.stdout) as { signature: string; address: string }
}

describe("svc sign", () => {
  it(
    "signs the message of a request-message answer and of a build stage-1 answer as PermitMessage.sign does",
    { timeout: scaled(60_000) },
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "svc-sign-"))
      try {
        const answer = join(dir, "request-message.json")
        writeFileSync(answer, JSON.stringify({ ok: true, message: MESSAGE }))
        const stage1 = {
          signatureRequired: true,
          signingPayload: { message: MESSAGE, standard: "DIRECT", encoding: "EIP191_PERSONAL_SIGN_UTF8" },
          quote: { quoteId: "0x20" },
          expiresAt: 2_000_000_000
        }
        const [fromFile, fromBuild, fromStdin, fromEnv, bare] = await svcAll([
          { args: ["sign", "--key", KEY, answer] },
          { args: ["sign", "--key", KEY], stdin: JSON.stringify(stage1) },
          { args: ["sign", "--key", KEY, "-"], stdin: JSON.stringify({ ok: true, message: MESSAGE }) },
          { args: ["sign"], stdin: JSON.stringify({ message: MESSAGE }), env: { SVC_SIGN_KEY: KEY } },
          // the key without 0x, and `svc permit-message`'s own output as input
          { args: ["sign", "--key", KEY.slice(2)], stdin: `${JSON.stringify({ message: MESSAGE })}\n` }
        ])
        const expected = PermitMessage.sign(MESSAGE, KEY)
        assert.strictEqual(expected, vectors.permitRequestEvm.requestSignature)
        for (const r of [fromFile, fromBuild, fromStdin, fromEnv, bare]) {
          const out = signed(r)
          assert.deepStrictEqual(out, { signature: expected, address: ADDRESS })
          assert.strictEqual(out.address, getAddress(out.address), "EIP-55")
          const recovered = PermitMessage.recoverSigner(MESSAGE, out.signature)
          assert.isTrue(Result.isSuccess(recovered))
          assert.strictEqual(Result.getOrThrow(recovered), out.address)
        }
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    }
  )

  it("signs any other input as its raw bytes, a trailing newline included", { timeout: scaled(60_000) }, async () => {
    const dir = mkdtempSync(join(tmpdir(), "svc-sign-"))
    try {
      const file = join(dir, "message.txt")
      const bytes = Uint8Array.from([...new TextEncoder().encode("hello svc\n"), 0xff, 0x00, 0x0a])
      writeFileSync(file, bytes)
      const json = JSON.stringify({ message: "inner" })
      const [fromFile, fromStdin, text, raw] = await svcAll([
        { args: ["sign", "--key", KEY, file] },
        { args: ["sign", "--key", KEY], stdin: bytes },
        { args: ["sign", "--key", KEY], stdin: "hello svc\n" },
        // --raw: JSON signed as its own bytes
        { args: ["sign", "--key", KEY, "--raw"], stdin: json }
      ])
      const expected = Signature.signPersonalMessage(bytes, KEY)
      assert.deepStrictEqual(signed(fromFile), { signature: expected, address: ADDRESS })
      assert.deepStrictEqual(signed(fromStdin), { signature: expected, address: ADDRESS })
      const withNewline = signed(text).signature
      assert.strictEqual(withNewline, PermitMessage.sign("hello svc\n", KEY))
      assert.notStrictEqual(withNewline, PermitMessage.sign("hello svc", KEY), "the newline is part of the message")
      assert.strictEqual(signed(raw).signature, PermitMessage.sign(json, KEY))
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it("bad input: one line on stderr, exit 2, the key never shown", { timeout: scaled(60_000) }, async () => {
    const badKey = `0x${"ab".repeat(31)}`
    const [noKey, malformed, zero, unreadable, noMessage, notString] = await svcAll([
      { args: ["sign"], stdin: "x", env: { SVC_SIGN_KEY: "" } },
      { args: ["sign", "--key", badKey], stdin: "x" },
      { args: ["sign", "--key", `0x${"0".repeat(64)}`], stdin: "x" },
      { args: ["sign", "--key", KEY, "/nonexistent/message.txt"] },
      { args: ["sign", "--key", KEY], stdin: JSON.stringify({ ok: false, error: { code: "X" } }) },
      { args: ["sign", "--key", KEY], stdin: JSON.stringify({ message: 42 }) }
    ])
    assert.match(oneLineRefusal(noKey), /--key: required \(or set SVC_SIGN_KEY\)/)
    assert.match(oneLineRefusal(malformed), /--key: must be 0x followed by 64 hex digits \(value not shown\)/)
    assert.notInclude(malformed.stderr, badKey.slice(2))
    assert.match(oneLineRefusal(zero), /--key: not a secp256k1 private key/)
    assert.match(oneLineRefusal(unreadable), /cannot read \/nonexistent\/message\.txt/)
    assert.match(oneLineRefusal(noMessage), /without message or signingPayload\.message.*--raw/)
    assert.match(oneLineRefusal(notString), /message: expected a string/)
  })
})
