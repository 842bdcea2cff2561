/* The two libsystemd calls libdbus's static library refers to (see stubs.c); nothing to import. */
#pragma once
