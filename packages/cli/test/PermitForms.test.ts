/**
 * `svc permit-digest` and `svc encode-permit` take a permit in either form: all
 * 35 fields of an ExecutionPermit, or the 31 fields of the ABI tuple (what other
 * SDKs' vectors carry); both give the same digest and payload. Schema issues are
 * one readable line.
 */
import { assert, describe, it } from "@effect/vitest"
import { PermitAbi } from "@svc/protocol"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { scaled } from "../../../test/support/time.ts"
import * as Protocol from "../src/Protocol.ts"
import { oneLineRefusal, ROOT, svc } from "./support/svc.ts"

const digestVectors = JSON.parse(readFileSync(join(ROOT, "fixtures/protocol/permit-digest/vectors.json"), "utf8"))
const abiVectors = JSON.parse(readFileSync(join(ROOT, "fixtures/protocol/abi/vectors.json"), "utf8"))

/** The 31 ABI fields of a permit, in ABI order. */
const tupleOf = (permit: Record<string, unknown>) =>
  Object.fromEntries(PermitAbi.PERMIT_TUPLE_FIELDS.map(({ name }) => [name, permit[name]]))

const digestCases = (digestVectors.cases as Array<any>).filter((c) => typeof c.permitDigest === "string")
const abiCases = (abiVectors.cases as Array<any>).filter((c) => typeof c.payload === "string")

describe("permits of 31 or 35 fields", () => {
  it("the 31-field form gives the vectors' digest and payload, as the 35-field form does", () => {
    assert.isAbove(digestCases.length, 3)
    assert.isAbove(abiCases.length, 2)
    for (const c of digestCases) {
      const tuple = tupleOf(c.permit)
      assert.strictEqual(Object.keys(tuple).length, 31)
      assert.strictEqual(Protocol.permitDigest(c.permit).permitDigest, c.permitDigest, c.id)
      assert.strictEqual(Protocol.permitDigest(tuple).permitDigest, c.permitDigest, c.id)
      assert.strictEqual(Protocol.permitDigest({ permit: tuple }).permitDigest, c.permitDigest, c.id)
    }
    for (const c of abiCases) {
      const tuple = tupleOf(c.permit)
      const full = Protocol.encodePermit({ permit: c.permit, permitSignature: c.permitSignature }).payload
      assert.strictEqual(full, c.payload, c.id)
      assert.strictEqual(Protocol.encodePermit({ permit: tuple, permitSignature: c.permitSignature }).payload, full)
      // the form decodePayload gives back is the 31-field one
      const decoded = PermitAbi.decodePayload(c.payload)
      assert.strictEqual(
        Protocol.permitDigest(decoded.permit).permitDigest,
        Protocol.permitDigest(c.permit).permitDigest
      )
    }
  })

  it("svc permit-digest and svc encode-permit take the 31-field form", { timeout: scaled(60_000) }, async () => {
    const d = digestCases[0]
    const a = abiCases[0]
    const [digest, payload] = await Promise.all([
      svc(["permit-digest"], { stdin: JSON.stringify(tupleOf(d.permit)) }),
      svc(["encode-permit"], {
        stdin: JSON.stringify({ permit: tupleOf(a.permit), permitSignature: a.permitSignature })
      })
    ])
    assert.deepStrictEqual(digest, {
      code: 0,
      stdout: `${JSON.stringify({ permitDigest: d.permitDigest })}\n`,
      stderr: ""
    })
    assert.deepStrictEqual(payload, { code: 0, stdout: `${JSON.stringify({ payload: a.payload })}\n`, stderr: "" })
  })

  it("schema issues are one line, single-spaced, the missing keys together", { timeout: scaled(60_000) }, async () => {
    const permit = digestCases[0].permit
    const { serviceFeeBps: _, feeMode: __, ...without } = permit
    const { amountInRaw: ___, ...tupleWithout } = tupleOf(permit)
    const [empty, partial, tupleMissing, badValue, unknown] = await Promise.all([
      svc(["permit-digest"], { stdin: JSON.stringify({ permit: {} }) }),
      svc(["permit-digest"], { stdin: JSON.stringify(without) }),
      svc(["permit-digest"], { stdin: JSON.stringify(tupleWithout) }),
      svc(["permit-digest"], { stdin: JSON.stringify({ ...permit, amountInRaw: "0x12" }) }),
      svc(["encode-permit"], {
        stdin: JSON.stringify({ permit: { ...permit, extra: 1 }, permitSignature: abiCases[0].permitSignature })
      })
    ])
    for (const r of [empty, partial, tupleMissing, badValue, unknown]) {
      const line = oneLineRefusal(r)
      assert.notMatch(line, / {2}/, "no doubled spaces")
      assert.notInclude(line, "Missing key")
    }
    assert.match(
      empty.stderr,
      /^svc: permit: missing releaseId, fillId, .*, amountOutRaw \(read as the 31-field ABI form/
    )
    assert.match(
      partial.stderr,
      /^svc: permit: missing feeMode, serviceFeeBps \(give all 35 fields, or the 31 ABI fields without publicationLane, serviceCategory, feeMode, serviceFeeBps\)\n$/
    )
    assert.match(tupleMissing.stderr, /^svc: permit: missing amountInRaw \(read as the 31-field ABI form/)
    assert.match(badValue.stderr, /^svc: permit: amountInRaw: Expected a string matching/)
    assert.match(unknown.stderr, /^svc: permit: extra: unknown field\n$/)
  })
})
