// GTK 4 (libgtk-4-dev; pkg-config gtk4) for the GTK example.
#include <gtk/gtk.h>
