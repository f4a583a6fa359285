/**
 * What the system's error codes mean for a file or directory that cannot be made where the
 * user asked, in the user's terms: the messages that name the user's path (not a temporary
 * file beside it) give this as their cause.
 */

const FILE_FAULTS: Record<string, string> = {
  ENOENT: 'a directory on its path does not exist',
  ENOTDIR: 'a part of its path is a file',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'the file system is read-only',
  ENOSPC: 'the disk is full',
};

/** The cause of a failed file operation in words, or undefined when it is not a system error. */
export function fileFault(error: unknown): string | undefined {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (typeof code !== 'string') return undefined;
  return FILE_FAULTS[code] ?? code;
}
