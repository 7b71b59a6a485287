import { assert, describe, it } from "@effect/vitest"
import { ExecutionRevertedError, HttpRequestError, RpcRequestError, TimeoutError } from "viem"
import { classify, isRevert } from "../src/internal/errors.ts"

describe("classification of RPC failures", () => {
  it("transport failures are ConnectorUnavailable (503, retry)", () => {
    for (
      const error of [
        new HttpRequestError({ url: "http://127.0.0.1:9", status: 502 }),
        new TimeoutError({ body: {}, url: "http://127.0.0.1:9" }),
        new RpcRequestError({
          body: {},
          url: "http://127.0.0.1:9",
          error: { code: -32601, message: "method not found" }
        })
      ]
    ) {
      const e = classify(error, "8453")
      assert.strictEqual(e._tag, "ConnectorUnavailable")
      assert.strictEqual(e.code, "RPC_UNAVAILABLE")
      assert.include(e.message, "chain 8453")
      assert.isFalse(isRevert(error))
    }
  })

  it("a revert is the contract's verdict, anything else a refused proof", () => {
    assert.isTrue(isRevert(new ExecutionRevertedError({ message: "execution reverted" })))
    const other = classify(new Error("odd"), "1")
    assert.strictEqual(other._tag, "ConnectorError")
    assert.strictEqual(other.code, "PROOF_INVALID")
  })
})
