# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# make check gates of the book and the API reference, sourced by tools/check (which defines
# `gate`): both editions of the book (a missing or unused snippet fails), Doxygen with
# warnings as errors.
# shellcheck shell=bash
gate_bg "book: student and instructor editions" make --no-print-directory book
gate_bg "docs: API reference (Doxygen, warnings are errors)" make --no-print-directory docs
