/**
 * `svc keys`: encrypted key files (Web3 Secret Storage v3, the JSON keystores
 * geth, Foundry's `cast wallet` and ethers read) for the authority key and the
 * payout key of a deployment (`SVC_SIGNER_KEYSTORE`, `SVC_PAYOUT_KEYSTORE`) and
 * for the key `svc deploy` signs with.
 *
 * - `svc keys new --out FILE`: a new random key, encrypted; prints its address.
 * - `svc keys import --out FILE`: the raw key read from standard input (0x + 64
 *   hex digits), encrypted; prints its address.
 * - `svc keys address FILE`: the address a keystore holds (no password needed).
 *
 * The password comes from `--password-file FILE`, else the file named by
 * `SVC_KEYSTORE_PASSWORD_FILE` (one file may serve every keystore), never from
 * the command line. Output is one JSON value: `{address, keystore}`.
 *
 * @since 0.1.0
 */
import { Keystore } from "@svc/core"
import { Effect, Option, Path, Redacted } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import { encryptTo, passwordFile, readKeystore, readPassword } from "./internal/keyfiles.ts"
import { BadInput, readInput, writeJson } from "./Io.ts"

const out = Flag.String("out").pipe(
  Flag.withDescription("the keystore file to write (it must not exist; written with owner-only permissions)")
)

const passwordFlag = Flag.String("password-file").pipe(
  Flag.withDescription(
    "file holding the password (default: SVC_KEYSTORE_PASSWORD_FILE); its final line break is ignored"
  ),
  Flag.optional
)

const scryptN = Flag.Int("scrypt-n").pipe(
  Flag.withDescription(
    `scrypt cost, a power of 2 (default ${Keystore.DEFAULT_SCRYPT_N}); a lower cost unlocks faster and is guessed faster: for throwaway test keys only`
  ),
  Flag.optional
)

const absolute = (file: string) => Effect.map(Effect.service(Path.Path), (path) => path.resolve(process.cwd(), file))

const created = (file: string, key: Redacted.Redacted<string>, flags: {
  readonly passwordFile: Option.Option<string>
  readonly scryptN: Option.Option<number>
}) =>
  Effect.gen(function*() {
    const password = yield* readPassword(yield* passwordFile(flags.passwordFile))
    const target = yield* absolute(file)
    const address = yield* encryptTo(target, key, password, Option.getOrUndefined(flags.scryptN))
    yield* writeJson({ address, keystore: target })
  })

const newKey = Command.make(
  "new",
  { out, passwordFile: passwordFlag, scryptN },
  (flags) => created(flags.out, Keystore.generateKey(), flags)
).pipe(
  Command.withDescription("write a new random key to an encrypted keystore file and print its address")
)

const importKey = Command.make(
  "import",
  { out, passwordFile: passwordFlag, scryptN },
  (flags) =>
    Effect.gen(function*() {
      const text = (yield* readInput(Option.none())).trim()
      const key = text.startsWith("0x") ? text : `0x${text}`
      if (!/^0x[0-9a-fA-F]{64}$/.test(key)) {
        return yield* new BadInput({
          message: "standard input: a private key is 0x followed by 64 hex digits (value not shown)"
        })
      }
      yield* created(flags.out, Redacted.make(key.toLowerCase()), flags)
    })
).pipe(
  Command.withDescription(
    "read a raw private key from standard input, write it to an encrypted keystore file and print its address"
  )
)

const address = Command.make("address", {
  file: Argument.String("file").pipe(Argument.withDescription("the keystore file"))
}, ({ file }) =>
  Effect.gen(function*() {
    const target = yield* absolute(file)
    const keystore = yield* readKeystore(target)
    const account = yield* Effect.fromResult(Keystore.addressOf(keystore)).pipe(
      Effect.mapError((e) => new BadInput({ message: `keystore ${target}: ${e.message}` }))
    )
    yield* writeJson({ address: account, keystore: target })
  })).pipe(Command.withDescription("print the address a keystore file holds (no password needed)"))

/**
 * The `keys` command.
 *
 * @category running
 * @since 0.1.0
 */
export const keys = Command.make("keys").pipe(
  Command.withDescription(
    "encrypted key files (Web3 Secret Storage v3, as geth, Foundry and ethers read them): new, import, address"
  ),
  Command.withSubcommands([newKey, importKey, address])
)
