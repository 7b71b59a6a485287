import { assert, describe, it } from "@effect/vitest"
import { fc, test as fcTest } from "@fast-check/vitest"
import { Result } from "effect"
import { concat, hashMessage, keccak256, recoverAddress, stringToBytes, toBytes } from "viem"
import { privateKeyToAccount, sign as viemSign, signMessage as viemSignMessage } from "viem/accounts"
import { Signature } from "../src/index.ts"
import { bytes32, privateKey } from "./arbitraries.ts"
import { TEST_ADDRESS, TEST_KEY } from "./samples.ts"

type Hex = `0x${string}`

const { SECP256K1_HALF_N, SECP256K1_N } = Signature

const word = (n: bigint): string => n.toString(16).padStart(64, "0")
const sigOf = (r: bigint, s: bigint, v: number): string => `0x${word(r)}${word(s)}${v.toString(16).padStart(2, "0")}`

const DIGEST: Hex = keccak256(stringToBytes("svc signature test digest"))
const VALID = Signature.signDigest(DIGEST, TEST_KEY)

const problemOf = (signature: unknown): Signature.SignatureProblem | undefined => {
  const result = Signature.parse(signature as string)
  return Result.isFailure(result) ? result.failure.problem : undefined
}

describe("Signature.parse", () => {
  it("accepts a low-s signature with v 27/28 and returns its parts", () => {
    const parsed = Signature.parse(VALID)
    assert.isTrue(Result.isSuccess(parsed))
    if (Result.isSuccess(parsed)) {
      assert.strictEqual(parsed.success.r, BigInt(`0x${VALID.slice(2, 66)}`))
      assert.strictEqual(parsed.success.s, BigInt(`0x${VALID.slice(66, 130)}`))
      assert.strictEqual(parsed.success.recovery, VALID.endsWith("1b") ? 0 : 1)
      assert.strictEqual(Signature.serialize(parsed.success), VALID)
    }
  })

  it("v 0/1 is the same recovery id as v 27/28 (upstream verifiers accept both spellings)", () => {
    const body = VALID.slice(0, 130)
    const v = VALID.slice(130)
    const raw = `${body}${v === "1b" ? "00" : "01"}`
    const other = `${body}${v === "1b" ? "01" : "00"}`
    assert.deepStrictEqual(Signature.recoverDigestSigner(DIGEST, raw), Result.succeed(TEST_ADDRESS))
    const flipped = Signature.recoverDigestSigner(DIGEST, other)
    assert.isFalse(Result.isSuccess(flipped) && flipped.success === TEST_ADDRESS)
  })

  it("refuses malformed length and hex as MALFORMED", () => {
    for (
      const bad of [
        "",
        "0x",
        VALID.slice(0, -2), // 64 bytes
        `${VALID}00`, // 66 bytes
        VALID.slice(2), // no 0x
        `0X${VALID.slice(2)}`,
        `${VALID.slice(0, 10)}g${VALID.slice(11)}`,
        ` ${VALID}`,
        `${VALID}\n`,
        `0x${"zz".repeat(65)}`
      ]
    ) {
      assert.strictEqual(problemOf(bad), "MALFORMED", JSON.stringify(bad))
    }
    assert.strictEqual(problemOf(12345), "MALFORMED")
    assert.strictEqual(problemOf(null), "MALFORMED")
  })

  it("refuses any v other than 0, 1, 27, 28 as BAD_V", () => {
    const body = VALID.slice(0, 130)
    for (const v of [0x1d, 0x1a, 0x02, 0x25, 0x26, 0xff, 0x80]) {
      assert.strictEqual(problemOf(`${body}${v.toString(16).padStart(2, "0")}`), "BAD_V", `v=${v}`)
    }
    for (const [v, recovery] of [[0, 0], [1, 1], [27, 0], [28, 1]] as const) {
      const parsed = Signature.parse(`${body}${v.toString(16).padStart(2, "0")}`)
      assert.isTrue(Result.isSuccess(parsed) && parsed.success.recovery === recovery, `v=${v}`)
    }
  })

  it("refuses r or s equal to 0 or at least n as OUT_OF_RANGE", () => {
    const r = BigInt(`0x${VALID.slice(2, 66)}`)
    const s = BigInt(`0x${VALID.slice(66, 130)}`)
    assert.strictEqual(problemOf(sigOf(0n, s, 27)), "OUT_OF_RANGE")
    assert.strictEqual(problemOf(sigOf(r, 0n, 27)), "OUT_OF_RANGE")
    assert.strictEqual(problemOf(sigOf(SECP256K1_N, s, 27)), "OUT_OF_RANGE")
    assert.strictEqual(problemOf(sigOf(r, SECP256K1_N, 28)), "OUT_OF_RANGE")
    assert.strictEqual(problemOf(sigOf((1n << 256n) - 1n, s, 28)), "OUT_OF_RANGE")
    assert.strictEqual(problemOf(sigOf(r, SECP256K1_N + 1n, 27)), "OUT_OF_RANGE")
    // n - 1 is in range for r (the s bound is n/2)
    assert.notStrictEqual(problemOf(sigOf(SECP256K1_N - 1n, s, 27)), "OUT_OF_RANGE")
  })

  it("refuses the high-s twin as HIGH_S and accepts s = n/2", () => {
    const twin = Signature.highSTwin(VALID)
    assert.strictEqual(problemOf(twin), "HIGH_S")
    assert.notStrictEqual(twin.slice(130), VALID.slice(130), "the twin has the other v")
    assert.strictEqual(Signature.highSTwin(twin), VALID, "the twin of the twin is the original")
    const r = BigInt(`0x${VALID.slice(2, 66)}`)
    assert.strictEqual(problemOf(sigOf(r, SECP256K1_HALF_N + 1n, 27)), "HIGH_S")
    assert.strictEqual(problemOf(sigOf(r, SECP256K1_N - 1n, 28)), "HIGH_S")
    assert.isUndefined(problemOf(sigOf(r, SECP256K1_HALF_N, 27)))
    assert.strictEqual(SECP256K1_HALF_N, SECP256K1_N / 2n)
  })

  it("recovery refuses the high-s twin that lenient recoverers accept", async () => {
    const twin = Signature.highSTwin(VALID)
    // viem (lenient) recovers the same signer from the twin ...
    assert.strictEqual(await recoverAddress({ hash: DIGEST, signature: twin }), TEST_ADDRESS)
    // ... svc refuses it
    const recovered = Signature.recoverDigestSigner(DIGEST, twin)
    assert.isTrue(Result.isFailure(recovered) && recovered.failure.problem === "HIGH_S")
  })

  it("an r with no point on the curve is UNRECOVERABLE, not a throw", () => {
    // x = 5 is not the x coordinate of a secp256k1 point (5^3 + 7 = 132 is not a square mod p)
    const result = Signature.recoverDigestSigner(DIGEST, sigOf(5n, 1n, 27))
    assert.isTrue(Result.isFailure(result))
    if (Result.isFailure(result)) assert.strictEqual(result.failure.problem, "UNRECOVERABLE")
  })
})

describe("Signature keys and addresses", () => {
  it("addressOf gives the EIP-55 address of the test key", () => {
    assert.strictEqual(Signature.addressOf(TEST_KEY), TEST_ADDRESS)
    assert.strictEqual(Signature.addressOf(TEST_KEY.toUpperCase().replace("0X", "0x") as Hex), TEST_ADDRESS)
  })

  it("rejects malformed private keys and keys outside 1..n-1", () => {
    for (
      const bad of [
        "0x",
        TEST_KEY.slice(0, -2),
        TEST_KEY.slice(2),
        `0x${"00".repeat(32)}`,
        `0x${word(SECP256K1_N)}`,
        `0x${"ff".repeat(32)}`
      ]
    ) {
      assert.throws(() => Signature.addressOf(bad as Hex))
      assert.throws(() => Signature.signDigest(DIGEST, bad as Hex))
    }
  })

  it("signDigest refuses a digest that is not 32 bytes", () => {
    assert.throws(() => Signature.signDigest("0x1234", TEST_KEY))
    assert.throws(() => Signature.signDigest(new Uint8Array(33), TEST_KEY))
  })

  it("publicKeyToAddress gives the same address for compressed and uncompressed keys", async () => {
    const { secp256k1 } = await import("@noble/curves/secp256k1.js")
    const secret = toBytes(TEST_KEY)
    assert.strictEqual(Signature.publicKeyToAddress(secp256k1.getPublicKey(secret, true)), TEST_ADDRESS)
    assert.strictEqual(Signature.publicKeyToAddress(secp256k1.getPublicKey(secret, false)), TEST_ADDRESS)
  })
})

describe("Signature.personalMessageDigest", () => {
  it("uses the UTF-8 byte length, not the UTF-16 length", () => {
    const message = "Zahlung für Überweisung 😀"
    const bytes = new TextEncoder().encode(message)
    assert.notStrictEqual(bytes.length, message.length)
    const prefixed = (length: number) =>
      keccak256(concat([stringToBytes(`\x19Ethereum Signed Message:\n${length}`), bytes]))
    assert.strictEqual(Signature.personalMessageDigest(message), prefixed(bytes.length))
    assert.notStrictEqual(Signature.personalMessageDigest(message), prefixed(message.length))
  })

  it("gives the same digest for a string and its UTF-8 bytes", () => {
    const message = "line 1\nline 2 — ✓"
    assert.strictEqual(
      Signature.personalMessageDigest(message),
      Signature.personalMessageDigest(new TextEncoder().encode(message))
    )
  })

  it("of the empty message", () => {
    assert.strictEqual(Signature.personalMessageDigest(""), keccak256(stringToBytes("\x19Ethereum Signed Message:\n0")))
  })
})

const SIG_RUNS = { numRuns: 40 }
const messageArb = fc.string({
  unit: fc.oneof(fc.string({ unit: "binary", minLength: 1, maxLength: 1 }), fc.constantFrom("\n", "é", "😀", "\u2028")),
  maxLength: 80
})

describe("Signature properties", () => {
  fcTest.prop([privateKey, bytes32], SIG_RUNS)(
    "signDigest is deterministic (RFC 6979), low-s, v 27/28 and recovers to addressOf(key)",
    async (key, digest) => {
      const signature = Signature.signDigest(digest, key)
      assert.strictEqual(Signature.signDigest(digest, key), signature)
      assert.match(signature, /^0x[0-9a-f]{128}(1b|1c)$/)
      assert.isTrue(BigInt(`0x${signature.slice(66, 130)}`) <= SECP256K1_HALF_N)
      assert.deepStrictEqual(Signature.recoverDigestSigner(digest, signature), Result.succeed(Signature.addressOf(key)))
      // the same bytes as viem's RFC 6979 signer
      assert.strictEqual(await viemSign({ hash: digest, privateKey: key, to: "hex" }), signature)
      // bytes input signs the same as hex input
      assert.strictEqual(Signature.signDigest(toBytes(digest), key), signature)
    }
  )

  fcTest.prop([privateKey, bytes32, bytes32], SIG_RUNS)(
    "a signature over one digest does not recover the signer over another",
    (key, digest, other) => {
      fc.pre(digest !== other)
      const signature = Signature.signDigest(digest, key)
      const recovered = Signature.recoverDigestSigner(other, signature)
      assert.isFalse(Result.isSuccess(recovered) && recovered.success === Signature.addressOf(key))
    }
  )

  fcTest.prop([privateKey, bytes32], SIG_RUNS)("the high-s twin of every signature is refused", (key, digest) => {
    const twin = Signature.highSTwin(Signature.signDigest(digest, key))
    const result = Signature.recoverDigestSigner(digest, twin)
    assert.isTrue(Result.isFailure(result) && result.failure.problem === "HIGH_S")
  })

  fcTest.prop([messageArb, privateKey], SIG_RUNS)(
    "personal_sign agrees with viem (hashMessage, signMessage) and recovers",
    async (message, key) => {
      const digest = Signature.personalMessageDigest(message)
      assert.strictEqual(digest, hashMessage(message))
      assert.strictEqual(digest, hashMessage({ raw: new TextEncoder().encode(message) }))
      const signature = Signature.signPersonalMessage(message, key)
      const account = privateKeyToAccount(key)
      assert.strictEqual(await account.signMessage({ message }), signature)
      assert.strictEqual(await viemSignMessage({ message, privateKey: key }), signature)
      assert.deepStrictEqual(
        Signature.recoverPersonalMessageSigner(message, signature),
        Result.succeed(account.address)
      )
      // a raw-digest signature of the message hash is not a personal_sign signature
      const raw = Signature.signDigest(keccak256(new TextEncoder().encode(message)), key)
      const wrong = Signature.recoverPersonalMessageSigner(message, raw)
      assert.isFalse(Result.isSuccess(wrong) && wrong.success === account.address)
    }
  )

  fcTest.prop([
    fc.bigInt({ min: 1n, max: SECP256K1_N - 1n }),
    fc.bigInt({ min: 1n, max: SECP256K1_N - 1n }),
    fc.constantFrom(0, 1, 27, 28)
  ], { numRuns: 300 })(
    "parse accepts exactly r, s in range with s <= n/2, and serialize normalises v to 27/28",
    (r, s, v) => {
      const parsed = Signature.parse(sigOf(r, s, v))
      if (s > SECP256K1_HALF_N) {
        assert.isTrue(Result.isFailure(parsed) && parsed.failure.problem === "HIGH_S")
      } else {
        assert.isTrue(Result.isSuccess(parsed))
        if (Result.isSuccess(parsed)) {
          assert.strictEqual(Signature.serialize(parsed.success), sigOf(r, s, v >= 27 ? v : v + 27))
        }
      }
    }
  )
})
