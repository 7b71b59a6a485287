/**
 * Keystores and password files for the commands that sign (`svc keys`,
 * `svc deploy`, `svc fund`): the password comes from a file (`--password-file`,
 * else `SVC_KEYSTORE_PASSWORD_FILE`), never from the command line.
 *
 * @internal
 */
import { Keystore } from "@svc/core"
import { Config, Effect, FileSystem, Option, type Redacted } from "effect"
import { BadInput } from "./contract.ts"

const firstLine = (e: unknown) => String((e as Error)?.message ?? e).split("\n")[0]

/** The password file to use: the flag, else SVC_KEYSTORE_PASSWORD_FILE; one line naming both when neither is set. */
export const passwordFile = (flag: Option.Option<string>) =>
  Effect.gen(function*() {
    if (Option.isSome(flag)) return flag.value
    const fromEnv = yield* Config.option(Config.String("SVC_KEYSTORE_PASSWORD_FILE")).pipe(
      Effect.orElseSucceed(() => Option.none<string>())
    )
    if (Option.isSome(fromEnv) && fromEnv.value.length > 0) return fromEnv.value
    return yield* new BadInput({
      message:
        "--password-file: required (or set SVC_KEYSTORE_PASSWORD_FILE): the keystore's password is read from a file, never from the command line"
    })
  })

/** Reads the password of a password file (its text without the final line break); an empty one is refused. */
export const readPassword = (path: string) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const text = yield* fs.readFileString(path).pipe(
      Effect.mapError((e) => new BadInput({ message: `password file ${path}: cannot read: ${firstLine(e)}` }))
    )
    const password = Keystore.passwordOfFile(text)
    if (text.replace(/\r?\n$/, "").length === 0) {
      return yield* new BadInput({ message: `password file ${path}: empty` })
    }
    return password
  })

/** Reads and parses a keystore file. */
export const readKeystore = (path: string) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const text = yield* fs.readFileString(path).pipe(
      Effect.mapError((e) => new BadInput({ message: `keystore ${path}: cannot read: ${firstLine(e)}` }))
    )
    return yield* Effect.fromResult(Keystore.parse(text)).pipe(
      Effect.mapError((e) => new BadInput({ message: `keystore ${path}: ${e.message}` }))
    )
  })

/** Unlocks a keystore with the password of a password file: the private key, redacted. */
export const unlock = (keystorePath: string, passwordPath: string) =>
  Effect.gen(function*() {
    const keystore = yield* readKeystore(keystorePath)
    const password = yield* readPassword(passwordPath)
    return yield* Keystore.decrypt(keystore, password).pipe(
      Effect.mapError((e) => new BadInput({ message: `keystore ${keystorePath}: ${e.message}` }))
    )
  })

/**
 * Writes a keystore document to a new file (owner-only permissions, parent
 * folders created): an existing file is never overwritten.
 */
export const writeKeystore = (path: string, document: unknown) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const exists = yield* fs.exists(path).pipe(Effect.orElseSucceed(() => false))
    if (exists) {
      return yield* new BadInput({ message: `--out ${path}: the file exists; a keystore is never overwritten` })
    }
    const parent = path.replace(/[/\\][^/\\]*$/, "")
    if (parent !== path && parent.length > 0) {
      yield* fs.makeDirectory(parent, { recursive: true, mode: 0o700 }).pipe(Effect.ignore)
    }
    yield* fs.writeFileString(path, `${JSON.stringify(document, null, 2)}\n`, { mode: 0o600, flag: "wx" }).pipe(
      Effect.mapError((e) => new BadInput({ message: `--out ${path}: cannot write: ${firstLine(e)}` }))
    )
  })

/** Encrypts a key into a new keystore file; returns its address. */
export const encryptTo = (
  path: string,
  key: Redacted.Redacted<string>,
  password: Redacted.Redacted<string>,
  scryptN: number | undefined
) =>
  Effect.gen(function*() {
    const document = yield* Keystore.encrypt(key, password, { scryptN }).pipe(
      Effect.mapError((e) => new BadInput({ message: e.message }))
    )
    yield* writeKeystore(path, document)
    return yield* Effect.fromResult(Keystore.addressOf(document)).pipe(
      Effect.mapError((e) => new BadInput({ message: e.message }))
    )
  })
