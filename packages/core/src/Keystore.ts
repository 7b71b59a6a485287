/**
 * Encrypted key files in the Web3 Secret Storage format, version 3: the JSON
 * keystores geth, Foundry (`cast wallet`), ethers and web3 read and write.
 *
 * - {@link encrypt} writes scrypt (r 8, p 1, cost {@link DEFAULT_SCRYPT_N}) and
 *   AES-128-CTR, with the account's `address`, which some readers require;
 * - {@link decrypt} reads scrypt or PBKDF2 (HMAC-SHA256) files, `crypto` or
 *   `Crypto` (as ethers writes it), checks the MAC before decrypting and the
 *   key against the file's `address`.
 *
 * The key derivation runs in WebAssembly (hash-wasm) and the cipher through
 * WebCrypto, so the module needs neither Node's `crypto` nor a native addon.
 * Passwords and keys are `Redacted` and never appear in an error message.
 *
 * @since 0.1.0
 */
import { secp256k1 } from "@noble/curves/secp256k1.js"
import { fromHex, type Hex, keccak, toHex } from "@svc/protocol/Bytes"
import { BYTES32 } from "@svc/protocol/Patterns"
import * as Signature from "@svc/protocol/Signature"
import { Data, Effect, Redacted, Result } from "effect"
import { createSHA256, pbkdf2, scrypt } from "hash-wasm"
import * as Entropy from "./Entropy.ts"

/**
 * A keystore that cannot be read, written or unlocked (a wrong password, a
 * malformed file, unsupported parameters). The message is one line and never
 * carries the password or the key.
 *
 * @category errors
 * @since 0.1.0
 */
export class KeystoreError extends Data.TaggedError("KeystoreError")<{ readonly message: string }> {}

/**
 * A Web3 Secret Storage v3 document as {@link encrypt} writes it.
 *
 * @category models
 * @since 0.1.0
 */
export interface KeystoreV3 {
  readonly version: 3
  readonly id: string
  /** The account, 40 lowercase hex digits without 0x (the format's convention). */
  readonly address: string
  readonly crypto: {
    readonly cipher: "aes-128-ctr"
    readonly cipherparams: { readonly iv: string }
    readonly ciphertext: string
    readonly kdf: "scrypt"
    readonly kdfparams: {
      readonly dklen: 32
      readonly n: number
      readonly r: 8
      readonly p: 1
      readonly salt: string
    }
    readonly mac: string
  }
}

/**
 * The scrypt cost {@link encrypt} uses by default: 2^17, as ethers writes. A
 * higher cost makes the password slower to guess and the key slower to unlock.
 *
 * @category constants
 * @since 0.1.0
 */
export const DEFAULT_SCRYPT_N = 131_072

/** 128 · N · r bytes of memory at most: 1 GiB. */
const MAX_SCRYPT_MEMORY = 1024 * 1024 * 1024

const fail = (message: string) => new KeystoreError({ message })

const hex = (bytes: Uint8Array) => toHex(bytes).slice(2)

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

const hexField = (value: unknown, what: string, bytes?: number): Result.Result<Uint8Array, KeystoreError> => {
  if (typeof value !== "string") return Result.fail(fail(`${what}: missing`))
  const digits = value.startsWith("0x") ? value.slice(2) : value
  if (!/^(?:[0-9a-fA-F]{2})*$/.test(digits)) return Result.fail(fail(`${what}: not hex`))
  if (bytes !== undefined && digits.length !== 2 * bytes) return Result.fail(fail(`${what}: not ${bytes} bytes`))
  return Result.succeed(fromHex(digits))
}

const integer = (value: unknown, what: string, min: number): Result.Result<number, KeystoreError> =>
  typeof value === "number" && Number.isSafeInteger(value) && value >= min
    ? Result.succeed(value)
    : Result.fail(fail(`${what}: not an integer of at least ${min}`))

/**
 * The password of a password file: its text without the one line break that
 * ends it (`echo secret > file` writes one). Everything else is kept.
 *
 * @category encoding
 * @since 0.1.0
 */
export const passwordOfFile = (text: string): Redacted.Redacted<string> => Redacted.make(text.replace(/\r?\n$/, ""))

/**
 * Parses a keystore file's text (JSON).
 *
 * @category encoding
 * @since 0.1.0
 */
export const parse = (text: string): Result.Result<Record<string, unknown>, KeystoreError> => {
  try {
    const json = JSON.parse(text) as unknown
    return isObject(json) ? Result.succeed(json) : Result.fail(fail("not a JSON object"))
  } catch {
    return Result.fail(fail("not JSON"))
  }
}

/**
 * The account a keystore says it holds (its `address` field, EIP-55), read
 * without the password.
 *
 * @category identifiers
 * @since 0.1.0
 */
export const addressOf = (keystore: unknown): Result.Result<Hex, KeystoreError> => {
  if (!isObject(keystore)) return Result.fail(fail("not a JSON object"))
  const address = keystore.address
  if (typeof address !== "string" || !/^(?:0x)?[0-9a-fA-F]{40}$/.test(address)) {
    return Result.fail(fail("no address field (the key's account is only known once unlocked)"))
  }
  return Result.succeed(checksum(address.startsWith("0x") ? address : `0x${address}`))
}

/** EIP-55 of a 20-byte address. */
const checksum = (address: string): Hex => {
  const lower = address.slice(2).toLowerCase()
  const hash = keccak(new TextEncoder().encode(lower)).slice(2)
  let out = "0x"
  for (let i = 0; i < 40; i++) out += parseInt(hash[i]!, 16) >= 8 ? lower[i]!.toUpperCase() : lower[i]!
  return out as Hex
}

const subtle = () => globalThis.crypto.subtle

/** AES-128-CTR with the whole 128-bit block as counter (the format's cipher); encryption and decryption are one. */
const aes128ctr = (key: Uint8Array, iv: Uint8Array, data: Uint8Array) =>
  Effect.tryPromise({
    try: async () => {
      const cryptoKey = await subtle().importKey("raw", key.slice(), "AES-CTR", false, ["encrypt"])
      const out = await subtle().encrypt({ name: "AES-CTR", counter: iv.slice(), length: 128 }, cryptoKey, data.slice())
      return new Uint8Array(out)
    },
    catch: () => fail("AES-128-CTR is not available here")
  })

interface Kdf {
  readonly derive: (password: Uint8Array) => Promise<Uint8Array>
}

const kdfOf = (crypto: Record<string, unknown>): Result.Result<Kdf, KeystoreError> =>
  Result.gen(function*() {
    const params = crypto.kdfparams
    if (!isObject(params)) return yield* Result.fail(fail("crypto.kdfparams: missing"))
    const salt = yield* hexField(params.salt, "crypto.kdfparams.salt")
    const dklen = yield* integer(params.dklen, "crypto.kdfparams.dklen", 32)
    if (crypto.kdf === "scrypt") {
      const n = yield* integer(params.n, "crypto.kdfparams.n", 2)
      const r = yield* integer(params.r, "crypto.kdfparams.r", 1)
      const p = yield* integer(params.p, "crypto.kdfparams.p", 1)
      if ((n & (n - 1)) !== 0) return yield* Result.fail(fail("crypto.kdfparams.n: not a power of 2"))
      if (128 * n * r > MAX_SCRYPT_MEMORY || p > 16) {
        return yield* Result.fail(fail("crypto.kdfparams: scrypt parameters beyond 1 GiB or p 16"))
      }
      return {
        derive: (password) =>
          scrypt({
            password,
            salt,
            costFactor: n,
            blockSize: r,
            parallelism: p,
            hashLength: dklen,
            outputType: "binary"
          })
      }
    }
    if (crypto.kdf === "pbkdf2") {
      if (params.prf !== "hmac-sha256") {
        return yield* Result.fail(fail("crypto.kdfparams.prf: only hmac-sha256 is supported"))
      }
      const c = yield* integer(params.c, "crypto.kdfparams.c", 1)
      if (c > 100_000_000) return yield* Result.fail(fail("crypto.kdfparams.c: more than 10^8 iterations"))
      return {
        derive: async (password) =>
          pbkdf2({
            password,
            salt,
            iterations: c,
            hashLength: dklen,
            hashFunction: createSHA256(),
            outputType: "binary"
          })
      }
    }
    return yield* Result.fail(fail(`crypto.kdf: ${JSON.stringify(crypto.kdf)} is not scrypt or pbkdf2`))
  })

const utf8 = (password: Redacted.Redacted<string>) =>
  new TextEncoder().encode(Redacted.value(password).normalize("NFKC"))

const macOf = (derived: Uint8Array, ciphertext: Uint8Array) => {
  const input = new Uint8Array(16 + ciphertext.length)
  input.set(derived.subarray(16, 32), 0)
  input.set(ciphertext, 16)
  return keccak(input).slice(2)
}

/**
 * Unlocks a keystore: the private key (0x + 64 hex), `Redacted`. Fails with a
 * {@link KeystoreError} on a wrong password (the MAC does not match), a
 * malformed file or unsupported parameters, and when the key's account is not
 * the file's `address`.
 *
 * @category crypto
 * @since 0.1.0
 */
export const decrypt = Effect.fn("Keystore.decrypt")(function*(
  keystore: unknown,
  password: Redacted.Redacted<string>
) {
  if (!isObject(keystore)) return yield* fail("not a JSON object")
  if (keystore.version !== 3) return yield* fail(`version ${JSON.stringify(keystore.version)}: only version 3 is read`)
  const crypto = keystore.crypto ?? keystore.Crypto
  if (!isObject(crypto)) return yield* fail("crypto: missing")
  if (crypto.cipher !== "aes-128-ctr") {
    return yield* fail(`crypto.cipher: ${JSON.stringify(crypto.cipher)} is not aes-128-ctr`)
  }
  const cipherparams = isObject(crypto.cipherparams) ? crypto.cipherparams : {}
  const iv = yield* Effect.fromResult(hexField(cipherparams.iv, "crypto.cipherparams.iv", 16))
  const ciphertext = yield* Effect.fromResult(hexField(crypto.ciphertext, "crypto.ciphertext", 32))
  const mac = yield* Effect.fromResult(hexField(crypto.mac, "crypto.mac", 32))
  const kdf = yield* Effect.fromResult(kdfOf(crypto))
  const derived = yield* Effect.tryPromise({
    try: () => kdf.derive(utf8(password)),
    catch: () => fail("the key derivation failed (out of memory?)")
  })
  if (macOf(derived, ciphertext) !== hex(mac).toLowerCase()) {
    return yield* fail("wrong password (the keystore's MAC does not match)")
  }
  const key = toHex(yield* aes128ctr(derived.subarray(0, 16), iv, ciphertext))
  if (!BYTES32.test(key) || !secp256k1.utils.isValidPrivateKey(fromHex(key))) {
    return yield* fail("the decrypted key is not a secp256k1 private key")
  }
  const account = Signature.addressOf(key)
  if (keystore.address !== undefined) {
    const declared = yield* Effect.fromResult(addressOf(keystore))
    if (declared.toLowerCase() !== account.toLowerCase()) {
      return yield* fail(`the key is ${account}, not the file's address ${declared}`)
    }
  }
  return Redacted.make(key)
})

/** A version 4 UUID from 16 random bytes (RFC 9562: version and variant bits set). */
const uuidV4 = (bytes: Uint8Array): string => {
  const b = bytes.slice(0, 16)
  b[6] = (b[6]! & 0x0f) | 0x40
  b[8] = (b[8]! & 0x3f) | 0x80
  const h = Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("")
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`
}

/**
 * Encrypts a private key (0x + 64 hex) with a password: scrypt with cost `n`
 * (default {@link DEFAULT_SCRYPT_N}), r 8, p 1, a random 32-byte salt, and
 * AES-128-CTR with a random IV. The salt, the IV and the file's id come from
 * `options.entropy` (default: the platform's secure generator, `Entropy.secure`).
 *
 * @category crypto
 * @since 0.1.0
 */
export const encrypt = Effect.fn("Keystore.encrypt")(function*(
  privateKey: Redacted.Redacted<string>,
  password: Redacted.Redacted<string>,
  options?: { readonly scryptN?: number | undefined; readonly entropy?: Entropy.EntropySource | undefined }
) {
  const key = Redacted.value(privateKey)
  if (!BYTES32.test(key) || !secp256k1.utils.isValidPrivateKey(fromHex(key))) {
    return yield* fail("not a private key: 0x followed by 64 hex digits, in 1 .. n-1 (value not shown)")
  }
  const n = options?.scryptN ?? DEFAULT_SCRYPT_N
  if (!Number.isSafeInteger(n) || n < 2 || (n & (n - 1)) !== 0 || 128 * n * 8 > MAX_SCRYPT_MEMORY) {
    return yield* fail(`scrypt cost ${n}: a power of 2 from 2 to 2^20`)
  }
  const source = options?.entropy ?? Entropy.secure
  const salt = source.bytes(32)
  const iv = source.bytes(16)
  const derived = yield* Effect.tryPromise({
    try: () =>
      scrypt({
        password: utf8(password),
        salt,
        costFactor: n,
        blockSize: 8,
        parallelism: 1,
        hashLength: 32,
        outputType: "binary"
      }),
    catch: () => fail("the key derivation failed (out of memory?)")
  })
  const ciphertext = yield* aes128ctr(derived.subarray(0, 16), iv, fromHex(key))
  const document: KeystoreV3 = {
    version: 3,
    id: uuidV4(source.bytes(16)),
    address: Signature.addressOf(key as Hex).slice(2).toLowerCase(),
    crypto: {
      cipher: "aes-128-ctr",
      cipherparams: { iv: hex(iv) },
      ciphertext: hex(ciphertext),
      kdf: "scrypt",
      kdfparams: { dklen: 32, n, r: 8, p: 1, salt: hex(salt) },
      mac: macOf(derived, ciphertext)
    }
  }
  return document
})

/**
 * A new random private key (0x + 64 hex), `Redacted`.
 *
 * @category crypto
 * @since 0.1.0
 */
export const generateKey = (): Redacted.Redacted<string> => Redacted.make(toHex(secp256k1.utils.randomPrivateKey()))
