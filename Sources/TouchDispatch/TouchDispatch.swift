// TouchDispatch: see DESIGN.md section 6. This file is replaced as the module is built.
