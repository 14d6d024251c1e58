/*
 * Facts of the PC platform that the kernel, both boot paths (the BIOS entry stub in nasm
 * included, through build/gen/abi.inc) and the configuration parser share: the legacy
 * serial ports and the 16550's registers (PC16550D datasheet, Table 2), QEMU's fw_cfg and
 * isa-debug-exit ports, and the exit codes a run ends with. Object-like #defines only.
 */
#ifndef LIB_PC_IO_H
#define LIB_PC_IO_H

/* ---- Serial ports (IBM PC/AT COM1-COM4) and the 16550 UART */
#define UART_COM1        0x3f8
#define UART_COM2        0x2f8
#define UART_COM3        0x3e8
#define UART_COM4        0x2e8
#define UART_BASE_BAUD   115200     /* 1.8432 MHz / 16: baud = UART_BASE_BAUD / divisor */
#define UART_THR         0          /* transmit holding (write), receive buffer (read) */
#define UART_IER         1
#define UART_DLL         0          /* divisor latch, with LCR_DLAB set */
#define UART_DLM         1
#define UART_FCR         2
#define UART_LCR         3
#define UART_MCR         4
#define UART_LSR         5
#define UART_MSR         6
#define UART_SCR         7
#define UART_LCR_8N1     0x03
#define UART_LCR_DLAB    0x80
#define UART_FCR_ENABLE_CLEAR 0x07
#define UART_MCR_DTR_RTS_OUT2 0x0b
#define UART_LSR_DR      0x01
#define UART_LSR_THRE    0x20

/* ---- QEMU's devices (docs/specs/fw_cfg.rst; hw/misc/debugexit.c) */
#define QEMU_FW_CFG_PORT_SEL  0x510
#define QEMU_FW_CFG_PORT_DATA 0x511
#define QEMU_DEBUG_EXIT_PORT  0xf4  /* a write of v exits QEMU with status v * 2 + 1 */

/* ---- How a run ends: the code the kernel prints, and scripts/qemu-run's exit status */
#define EXIT_CODE_OK     0          /* the run finished and passed */
#define EXIT_CODE_FAIL   1          /* a check or the configuration failed */
#define EXIT_CODE_FATAL  2          /* kernel fault or bad boot */
/* What QEMU_DEBUG_EXIT_PORT gets: QEMU_DEBUG_EXIT_BASE + the code, so QEMU exits with status
 * 33, 35 or 37. QEMU's own statuses are 0 (the guest powered off or reset with -no-reboot)
 * and 1 (it could not start: a bad -cpu, -m or -machine), the same 1 a guest writing 0 gives;
 * a base keeps every guest status apart from both. */
#define QEMU_DEBUG_EXIT_BASE 0x10

#endif
