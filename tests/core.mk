# tests of core
