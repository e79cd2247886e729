// Linux's sync_file_range(2), which Swift's Glibc module does not export (glibc declares it only
// under _GNU_SOURCE): the column store starts writing a large file to the device while it is
// still being written (HandzColumnStore's DurableFile). Header only; glibc has the symbol.
#pragma once
#if defined(__linux__)
extern int sync_file_range(int fd, long long offset, long long nbytes, unsigned int flags);

/// Waits for the range's pages already being written (SYNC_FILE_RANGE_WAIT_BEFORE, 1), starts
/// writing its dirty pages (SYNC_FILE_RANGE_WRITE, 2) and, with `wait`, waits for them too
/// (SYNC_FILE_RANGE_WAIT_AFTER, 4). Returns 0, or -1 with errno.
static inline int handz_write_behind(int fd, long long offset, long long length, int wait) {
    return sync_file_range(fd, offset, length, wait ? 1u | 2u | 4u : 2u);
}
#endif
