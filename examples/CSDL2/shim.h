// SDL 2 (libsdl2-dev; pkg-config sdl2) for the SDL example. SDL_main.h is left out: the example's
// main is Swift's.
#define SDL_MAIN_HANDLED
#include <SDL.h>
#include <SDL_syswm.h>
