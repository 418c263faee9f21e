// phone: a phone in a terminal. Thin main: the logic lives in phone/.
#include "phone/cli.hpp"

#include <iostream>
#include <unistd.h>

int main(int argc, char** argv) {
  return simsync::phone::run(argc, argv, std::cin, std::cout, std::cerr,
                             ::isatty(STDIN_FILENO) != 0);
}
