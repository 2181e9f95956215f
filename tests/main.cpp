#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <csignal>

int main(int argc, char* argv[]) {
    // Tests write into pipes whose reader may stop early; they check EPIPE instead of dying.
#ifdef SIGPIPE // no such signal on Windows
    std::signal(SIGPIPE, SIG_IGN);
#endif
    return Catch::Session().run(argc, argv);
}
