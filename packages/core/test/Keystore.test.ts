/**
 * Web3 Secret Storage v3 keystores: files written by other implementations
 * unlock (the format specification's PBKDF2 vector; a file written by ethers
 * 6.17.0 with its `Crypto` key), ours round-trip, and every way a file can be
 * wrong (password, MAC, address, cipher, parameters) is one refusal line that
 * names neither the password nor the key.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Signature from "@svc/protocol/Signature"
import { Effect, FileSystem, Layer, Redacted, Result } from "effect"
import { scaled } from "../../../test/support/time.ts"
import * as Entropy from "../src/Entropy.ts"
import * as Keystore from "../src/Keystore.ts"
import * as Signer from "../src/Signer.ts"

const SPEC_KEY = "0x7a28b5ba57c53603b0b07b56bba752f7784bf506fa95edc395f5cf6c7514fe9d"

/** The PBKDF2 test vector of the Web3 Secret Storage definition (password "testpassword"). */
const SPEC_PBKDF2 = {
  crypto: {
    cipher: "aes-128-ctr",
    cipherparams: { iv: "6087dab2f9fdbbfaddc31a909735c1e6" },
    ciphertext: "5318b4d5bcd28de64ee5559e671353e16f075ecae9f99c7a79a38af5f869aa46",
    kdf: "pbkdf2",
    kdfparams: {
      c: 262144,
      dklen: 32,
      prf: "hmac-sha256",
      salt: "ae3cd4e7013836a3df6bd7241b12db061dbe2c6785853cce422d148a624ce0bd"
    },
    mac: "517ead924a9d0dc3124507e3393d175ce3ff7c1e96529c6c555ce9e51205e9b2"
  },
  id: "3198bc9c-6672-5ab3-d995-4942343ae5b6",
  version: 3
}

const ETHERS_KEY = "0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318"

/**
 * Written by ethers 6.17.0: `encryptKeystoreJsonSync({ address, privateKey: ETHERS_KEY },
 * "correct horse battery staple", { scrypt: { N: 1024 } })` (ethers writes `Crypto`).
 */
const ETHERS_FILE = {
  address: "2c7536e3605d9c16a7a3d7b1898e529396a65c23",
  id: "274da38e-9762-4552-8057-b2eaf439f464",
  version: 3,
  Crypto: {
    cipher: "aes-128-ctr",
    cipherparams: { iv: "673abc3bf75f65b97253e59509a2d5ac" },
    ciphertext: "3c2d36e333a5fa014e26c237b71c5935516d8dadb250c6d946edfb9f97d61270",
    kdf: "scrypt",
    kdfparams: {
      salt: "e774a697a73c4354166159ed0ed6f12cd84d353285a57e781cab3d5b78710171",
      n: 1024,
      dklen: 32,
      p: 1,
      r: 8
    },
    mac: "ff243a535942ce44c1fd80f8faf2668166e5372b66583f1bfda4f27afeea16e9"
  }
}

const unlock = (file: unknown, password: string) =>
  Effect.result(Keystore.decrypt(file, Redacted.make(password))).pipe(
    Effect.map(Result.map(Redacted.value)),
    Effect.map(Result.mapError((e) => e.message))
  )

describe("Keystore.decrypt: files of other implementations", () => {
  it.effect("the specification's PBKDF2 vector", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* unlock(SPEC_PBKDF2, "testpassword"), Result.succeed(SPEC_KEY))
    }), { timeout: scaled(60_000) })

  it.effect("a file written by ethers (scrypt, the Crypto key)", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* unlock(ETHERS_FILE, "correct horse battery staple"), Result.succeed(ETHERS_KEY))
      assert.deepStrictEqual(Keystore.addressOf(ETHERS_FILE), Result.succeed(Signature.addressOf(ETHERS_KEY)))
    }))
})

describe("Keystore.encrypt", () => {
  it.effect("writes v3 scrypt r 8 p 1 with the address, and unlocks with its password only", () =>
    Effect.gen(function*() {
      const file = yield* Keystore.encrypt(Redacted.make(ETHERS_KEY), Redacted.make("pw"), { scryptN: 1024 })
      assert.strictEqual(file.version, 3)
      assert.strictEqual(file.address, Signature.addressOf(ETHERS_KEY).slice(2).toLowerCase())
      assert.deepInclude(file.crypto.kdfparams, { n: 1024, r: 8, p: 1, dklen: 32 })
      assert.match(file.crypto.kdfparams.salt, /^[0-9a-f]{64}$/)
      assert.match(file.id, /^[0-9a-f-]{36}$/)
      // through JSON, as a file
      const text = JSON.stringify(file)
      const parsed = Result.getOrThrow(Keystore.parse(text))
      assert.deepStrictEqual(yield* unlock(parsed, "pw"), Result.succeed(ETHERS_KEY))
      assert.deepStrictEqual(
        yield* unlock(parsed, "pw "),
        Result.fail("wrong password (the keystore's MAC does not match)")
      )
      // two encryptions of one key differ (salt, IV)
      const again = yield* Keystore.encrypt(Redacted.make(ETHERS_KEY), Redacted.make("pw"), { scryptN: 1024 })
      assert.notStrictEqual(again.crypto.ciphertext, file.crypto.ciphertext)
      assert.notStrictEqual(again.crypto.kdfparams.salt, file.crypto.kdfparams.salt)
      assert.match(file.id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    }))

  it.effect("takes its salt, IV and id from the entropy given: a seeded source gives the same file twice", () =>
    Effect.gen(function*() {
      const make = () =>
        Keystore.encrypt(Redacted.make(ETHERS_KEY), Redacted.make("pw"), { scryptN: 1024, entropy: Entropy.seeded(7) })
      const [a, b] = [yield* make(), yield* make()]
      assert.deepStrictEqual(a, b)
      assert.match(a.id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
      assert.deepStrictEqual(yield* unlock(a, "pw"), Result.succeed(ETHERS_KEY))
    }))

  it.effect("defaults to scrypt cost 2^17 and refuses what is not a key or a usable cost", () =>
    Effect.gen(function*() {
      assert.strictEqual(Keystore.DEFAULT_SCRYPT_N, 131_072)
      for (const key of ["0x1234", `0x${"0".repeat(64)}`, ETHERS_KEY.slice(2)]) {
        const refused = yield* Effect.flip(Keystore.encrypt(Redacted.make(key), Redacted.make("pw"), { scryptN: 1024 }))
        assert.match(refused.message, /^not a private key: .*\(value not shown\)$/)
        assert.notInclude(refused.message, key)
      }
      for (const scryptN of [1000, 1, 2 ** 21]) {
        const refused = yield* Effect.flip(
          Keystore.encrypt(Redacted.make(ETHERS_KEY), Redacted.make("pw"), { scryptN })
        )
        assert.match(refused.message, /^scrypt cost/)
      }
    }))

  it("generateKey gives distinct keys that encrypt", () => {
    const a = Redacted.value(Keystore.generateKey())
    const b = Redacted.value(Keystore.generateKey())
    assert.match(a, /^0x[0-9a-f]{64}$/)
    assert.notStrictEqual(a, b)
  })
})

describe("Keystore.decrypt: refusals", () => {
  const ours = Keystore.encrypt(Redacted.make(ETHERS_KEY), Redacted.make("pw"), { scryptN: 1024 })

  it.effect("a tampered ciphertext or MAC, another address, another cipher or version, bad parameters", () =>
    Effect.gen(function*() {
      const file = yield* ours
      const flip = (hex: string) => (hex[0] === "0" ? "1" : "0") + hex.slice(1)
      const cases: ReadonlyArray<[string, unknown, RegExp]> = [
        ["ciphertext", { ...file, crypto: { ...file.crypto, ciphertext: flip(file.crypto.ciphertext) } }, /MAC/],
        ["mac", { ...file, crypto: { ...file.crypto, mac: flip(file.crypto.mac) } }, /MAC/],
        ["address", { ...file, address: "00".repeat(20) }, /^the key is 0x2c7536E3.* not the file's address 0x0{40}$/],
        ["cipher", { ...file, crypto: { ...file.crypto, cipher: "aes-128-cbc" } }, /^crypto.cipher: /],
        ["version", { ...file, version: 1 }, /^version 1: only version 3/],
        [
          "kdf",
          { ...file, crypto: { ...file.crypto, kdf: "argon2" } },
          /^crypto.kdf: "argon2" is not scrypt or pbkdf2$/
        ],
        [
          "n",
          { ...file, crypto: { ...file.crypto, kdfparams: { ...file.crypto.kdfparams, n: 1000 } } },
          /^crypto.kdfparams.n: not a power of 2$/
        ],
        [
          "memory",
          { ...file, crypto: { ...file.crypto, kdfparams: { ...file.crypto.kdfparams, n: 2 ** 24 } } },
          /beyond 1 GiB/
        ],
        [
          "iv",
          { ...file, crypto: { ...file.crypto, cipherparams: { iv: "00" } } },
          /^crypto.cipherparams.iv: not 16 bytes$/
        ],
        ["no crypto", { version: 3 }, /^crypto: missing$/],
        ["not an object", [], /^not a JSON object$/]
      ]
      for (const [what, input, expected] of cases) {
        const outcome = yield* unlock(input, "pw")
        assert.isTrue(Result.isFailure(outcome), what)
        const message = Result.isFailure(outcome) ? outcome.failure : ""
        assert.match(message, expected, what)
        assert.notInclude(message, ETHERS_KEY.slice(2), what)
        assert.notInclude(message, "\n", what)
      }
    }))

  it("addressOf reads the address field without the password, and says when there is none", () => {
    assert.deepStrictEqual(
      Keystore.addressOf(ETHERS_FILE),
      Result.succeed("0x2c7536E3605D9C16a7a3D7b1898e529396a65c23")
    )
    assert.isTrue(Result.isFailure(Keystore.addressOf(SPEC_PBKDF2)))
    assert.isTrue(Result.isFailure(Keystore.parse("not json")))
    assert.isTrue(Result.isFailure(Keystore.parse("[1]")))
  })

  it("a password file's password is its text without the final line break", () => {
    assert.strictEqual(Redacted.value(Keystore.passwordOfFile("secret\n")), "secret")
    assert.strictEqual(Redacted.value(Keystore.passwordOfFile("secret\r\n")), "secret")
    assert.strictEqual(Redacted.value(Keystore.passwordOfFile(" two words \n\n")), " two words \n")
    assert.strictEqual(Redacted.value(Keystore.passwordOfFile("secret")), "secret")
  })
})

describe("Signer.layerKeystore", () => {
  it.effect("signs with the keystore's key; a wrong password is SignerUnavailable naming the file", () =>
    Effect.gen(function*() {
      const files: Record<string, string> = {
        "/keys/authority.json": JSON.stringify(ETHERS_FILE),
        "/keys/password": "correct horse battery staple\n",
        "/keys/wrong": "wrong\n"
      }
      const fs = FileSystem.layerNoop({
        readFileString: (path) =>
          path in files ? Effect.succeed(files[path]!) : Effect.die(new Error(`unexpected read of ${path}`))
      })
      const signer = (passwordFile: string) =>
        Effect.service(Signer.Signer).pipe(
          Effect.provide(
            Signer.layerKeystore({ keystore: "/keys/authority.json", passwordFile }).pipe(Layer.provide(fs))
          )
        )
      const unlocked = yield* signer("/keys/password")
      assert.strictEqual(unlocked.address, Signature.addressOf(ETHERS_KEY))
      assert.isFalse(unlocked.development)
      const refused = yield* Effect.flip(signer("/keys/wrong"))
      assert.strictEqual(refused._tag, "SignerUnavailable")
      assert.strictEqual(
        refused.message,
        "keystore /keys/authority.json: wrong password (the keystore's MAC does not match)"
      )
    }))
})
