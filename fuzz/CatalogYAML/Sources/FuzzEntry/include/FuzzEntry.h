// The fuzz target's entry point (entry.c); nothing for Swift to call.
int catalog_yaml_main(int argc, char **argv);
