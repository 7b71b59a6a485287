import { assert, describe, it } from "@effect/vitest"
import { fc, test as fcTest } from "@fast-check/vitest"
import { Result } from "effect"
import { concat, encodeAbiParameters, getAddress, hashTypedData, keccak256, stringToBytes } from "viem"
import { PermitAbi, PermitDigest, Signature } from "../src/index.ts"
import { abiPermitArb, changeHexDigit, privateKey, prng, randomCase } from "./arbitraries.ts"
import { executionPermit, executionPermitEnvelope, TEST_ADDRESS, TEST_KEY } from "./samples.ts"

type Hex = `0x${string}`
type AbiPermit = PermitAbi.AbiPermit

/** The encodeType, written out by hand from docs/protocol.md, ExecutionPermit encoding (the on-chain tuple, ABI order). */
const ENCODE_TYPE_BY_HAND = "ExecutionPermit(" +
  [
    "bytes32 releaseId",
    "bytes32 fillId",
    "bytes32 routeId",
    "bytes32 quoteId",
    "bytes32 policyHash",
    "bytes32 permitNonce",
    "bytes32 sourceNetworkId",
    "bytes32 sourceAssetId",
    "bytes32 destinationNetworkId",
    "bytes32 destinationAssetId",
    "bytes32 sourceVaultAccountId",
    "bytes32 destinationVaultAccountId",
    "bytes32 payerAccountId",
    "bytes32 recipientAccountId",
    "uint64 dataVersion",
    "bytes32 executionGeneration",
    "uint64 validAfter",
    "uint64 validUntil",
    "uint32 sourceFinalityBlocks",
    "uint32 settlementWindowSeconds",
    "uint256 sourceChainId",
    "uint256 destinationChainId",
    "address sourceAsset",
    "address destinationAsset",
    "address sourceVault",
    "address destinationVault",
    "address sourceRouter",
    "address payer",
    "address recipient",
    "uint128 amountInRaw",
    "uint128 amountOutRaw"
  ].join(",") +
  ")"

const DOMAIN_TYPEHASH = keccak256(
  stringToBytes("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)")
)

/** EIP-712 written out: keccak256(0x1901 || domainSeparator || keccak256(typehash || 31 static words)). */
const digestByHand = (permit: AbiPermit): Hex => {
  const domainSeparator = keccak256(
    encodeAbiParameters(
      [{ type: "bytes32" }, { type: "bytes32" }, { type: "bytes32" }, { type: "uint256" }, { type: "address" }],
      [
        DOMAIN_TYPEHASH,
        keccak256(stringToBytes("Svc V6 Router")),
        keccak256(stringToBytes("6")),
        BigInt(permit.sourceChainId),
        String(permit.sourceRouter).toLowerCase() as Hex
      ]
    )
  )
  // every member is a static type, so encodeData is the typehash followed by the ABI words of the tuple
  const structHash = keccak256(concat([keccak256(stringToBytes(ENCODE_TYPE_BY_HAND)), PermitAbi.encodeTuple(permit)]))
  return keccak256(concat(["0x1901", domainSeparator, structHash]))
}

/** viem's hashTypedData with the documented domain. */
const digestByViem = (permit: AbiPermit): Hex => {
  const message: Record<string, unknown> = {}
  for (const { name, type } of PermitAbi.PERMIT_TUPLE_FIELDS) {
    const value = permit[name]
    message[name] = type.startsWith("uint")
      ? BigInt(value)
      : type === "address"
      ? getAddress(String(value).toLowerCase())
      : value
  }
  return hashTypedData({
    domain: {
      name: "Svc V6 Router",
      version: "6",
      chainId: BigInt(permit.sourceChainId),
      verifyingContract: getAddress(String(permit.sourceRouter).toLowerCase())
    },
    types: { ExecutionPermit: PermitAbi.PERMIT_TUPLE_FIELDS },
    primaryType: "ExecutionPermit",
    message: message as never
  })
}

/** The permit with one ABI field changed to another valid value. */
const changeField = (permit: AbiPermit, index: number, n: number): AbiPermit => {
  const { name, type } = PermitAbi.PERMIT_TUPLE_FIELDS[index]!
  const value = permit[name]
  let next: unknown
  if (type === "bytes32") next = changeHexDigit(String(value).toLowerCase(), n % 64, n)
  else if (type === "address") next = getAddress(changeHexDigit(String(value).toLowerCase(), n % 40, n))
  else {
    const max = (1n << BigInt(type.slice(4))) - 1n
    const current = BigInt(value)
    const changed = current === max ? current - 1n : current + 1n
    next = type === "uint32" ? Number(changed === 0n ? 2n : changed) : changed.toString()
  }
  return { ...permit, [name]: next }
}

const RUNS = { numRuns: 100 }
const SIG_RUNS = { numRuns: 25 }

describe("PermitDigest type", () => {
  it("ENCODE_TYPE lists the 31 tuple fields in ABI order with their Solidity types", () => {
    assert.strictEqual(PermitDigest.ENCODE_TYPE, ENCODE_TYPE_BY_HAND)
    const members = /^ExecutionPermit\((.*)\)$/.exec(PermitDigest.ENCODE_TYPE)![1]!.split(",")
    assert.lengthOf(members, 31)
    assert.deepStrictEqual(
      members.map((m) => m.split(" ")[1]),
      PermitAbi.PERMIT_TUPLE_FIELDS.map((f) => f.name)
    )
    for (const json of ["publicationLane", "serviceCategory", "feeMode", "serviceFeeBps"]) {
      assert.notInclude(PermitDigest.ENCODE_TYPE, json)
    }
  })

  it("TYPEHASH is keccak256 of the encodeType", () => {
    assert.strictEqual(PermitDigest.TYPEHASH, keccak256(stringToBytes(ENCODE_TYPE_BY_HAND)))
  })

  it("the domain is {name: Svc V6 Router, version: 6, chainId: sourceChainId, verifyingContract: sourceRouter}", () => {
    const domain = PermitDigest.domainOf(executionPermit)
    assert.strictEqual(domain.name, "Svc V6 Router")
    assert.strictEqual(domain.version, "6")
    assert.strictEqual(domain.chainId, 8453n)
    assert.strictEqual(domain.verifyingContract.toLowerCase(), executionPermit.sourceRouter.toLowerCase())
  })
})

describe("PermitDigest.digest", () => {
  it("of the sample permit matches the envelope, EIP-712 by hand and viem", () => {
    const digest = PermitDigest.digest(executionPermit)
    assert.strictEqual(digest, executionPermitEnvelope.permitDigest)
    assert.strictEqual(digest, digestByHand(executionPermit))
    assert.strictEqual(digest, digestByViem(executionPermit))
  })

  fcTest.prop([abiPermitArb], RUNS)("equals EIP-712 written out by hand and viem's hashTypedData", (permit) => {
    const digest = PermitDigest.digest(permit)
    assert.match(digest, /^0x[0-9a-f]{64}$/)
    assert.strictEqual(digest, digestByHand(permit))
    assert.strictEqual(digest, digestByViem(permit))
  })

  fcTest.prop([abiPermitArb, fc.nat({ max: 30 }), fc.nat()], { numRuns: 200 })(
    "changing any one of the 31 fields changes the digest",
    (permit, index, n) => {
      const changed = changeField(permit, index, n)
      assert.notDeepEqual(changed, permit)
      assert.notStrictEqual(
        PermitDigest.digest(changed),
        PermitDigest.digest(permit),
        PermitAbi.PERMIT_TUPLE_FIELDS[index]!.name
      )
    }
  )

  it("every field is covered (each of the 31 changes gives a distinct digest)", () => {
    const digests = new Set(
      PermitAbi.PERMIT_TUPLE_FIELDS.map((_, i) => PermitDigest.digest(changeField(executionPermit, i, 7)))
    )
    digests.add(PermitDigest.digest(executionPermit))
    assert.strictEqual(digests.size, 32)
  })

  fcTest.prop(
    [
      fc.constantFrom("L1", "L2", "L3", "L4"),
      fc.string(),
      fc.string(),
      fc.oneof(fc.constant(null), fc.integer({ min: 0, max: 10000 }), fc.double({ min: 0, max: 10000, noNaN: true }))
    ],
    RUNS
  )(
    "publicationLane, serviceCategory, feeMode and serviceFeeBps are not covered",
    (publicationLane, serviceCategory, feeMode, serviceFeeBps) => {
      const variant = { ...executionPermit, publicationLane, serviceCategory, feeMode, serviceFeeBps }
      assert.strictEqual(PermitDigest.digest(variant), executionPermitEnvelope.permitDigest)
    }
  )

  fcTest.prop([abiPermitArb, fc.integer()], RUNS)(
    "does not depend on the hex case of bytes32 and address fields",
    (permit, seed) => {
      const random = prng(seed)
      const respelled: Record<string, unknown> = { ...permit }
      for (const { name, type } of PermitAbi.PERMIT_TUPLE_FIELDS) {
        if (type === "bytes32" || type === "address") respelled[name] = randomCase(String(permit[name]), random)
      }
      assert.strictEqual(PermitDigest.digest(respelled as AbiPermit), PermitDigest.digest(permit))
    }
  )

  it("refuses missing, malformed and out-of-range fields with PermitAbiError", () => {
    const bad: Array<[string, unknown]> = [
      ["releaseId", null],
      ["releaseId", undefined],
      ["releaseId", executionPermit.releaseId.slice(0, 10)],
      ["dataVersion", (1n << 64n).toString()],
      ["dataVersion", ""],
      ["dataVersion", "0x10"],
      ["dataVersion", " 7"],
      ["validUntil", "-1"],
      ["amountInRaw", (1n << 128n).toString()],
      ["sourceFinalityBlocks", 2 ** 32],
      ["sourceFinalityBlocks", 1.5]
    ]
    for (const [name, value] of bad) {
      let error: unknown
      try {
        PermitDigest.digest({ ...executionPermit, [name]: value })
      } catch (e) {
        error = e
      }
      assert.instanceOf(error, PermitAbi.PermitAbiError, `${name}=${String(value)}`)
      const recovered = PermitDigest.recoverSigner(
        { ...executionPermit, [name]: value },
        executionPermitEnvelope.permitSignature
      )
      assert.isTrue(Result.isFailure(recovered) && recovered.failure._tag === "PermitAbiError")
    }
  })
})

describe("PermitDigest signing", () => {
  it("the sample permit signature recovers to the authority (test key)", () => {
    assert.deepStrictEqual(PermitDigest.sign(executionPermit, TEST_KEY), {
      permitDigest: executionPermitEnvelope.permitDigest,
      permitSignature: executionPermitEnvelope.permitSignature
    })
    assert.deepStrictEqual(
      PermitDigest.recoverSigner(executionPermit, executionPermitEnvelope.permitSignature),
      Result.succeed(TEST_ADDRESS)
    )
  })

  fcTest.prop([abiPermitArb, privateKey], SIG_RUNS)(
    "sign / recoverSigner round trip; the high-s twin is refused; another permit does not recover the signer",
    (permit, key) => {
      const { permitDigest, permitSignature } = PermitDigest.sign(permit, key)
      assert.strictEqual(permitDigest, PermitDigest.digest(permit))
      assert.deepStrictEqual(
        Signature.recoverDigestSigner(permitDigest, permitSignature),
        Result.succeed(Signature.addressOf(key))
      )
      assert.deepStrictEqual(
        PermitDigest.recoverSigner(permit, permitSignature),
        Result.succeed(Signature.addressOf(key))
      )
      const twin = PermitDigest.recoverSigner(permit, Signature.highSTwin(permitSignature))
      assert.isTrue(
        Result.isFailure(twin) && twin.failure._tag === "SignatureError" && twin.failure.problem === "HIGH_S"
      )
      const other = PermitDigest.recoverSigner(changeField(permit, 29, 1), permitSignature)
      assert.isFalse(Result.isSuccess(other) && other.success === Signature.addressOf(key))
    }
  )
})
