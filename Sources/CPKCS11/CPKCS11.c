/* Declarations only: Sources/CPKCS11/include/CPKCS11.h. */
