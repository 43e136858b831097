/*
 * The part of the PKCS #11 (Cryptoki) v2.40 calling interface UMFA uses to sign tokens with a
 * key kept in a hardware security module: the attribute, mechanism and initialisation
 * structures, and the function list in the order the standard fixes (§5.16, CK_FUNCTION_LIST),
 * up to C_Sign. Entries UMFA does not call are declared as plain pointers; the list a module
 * returns is longer, and is only read through a pointer. Written for UMFA from the standard's
 * text; UMFA's Swift side is Sources/UMFATokens/PKCS11.
 *
 * On every platform UMFA builds for (Linux and Apple, LP64), CK_ULONG is unsigned long and
 * the structures are packed as the C compiler packs them by default, as PKCS #11 asks there.
 */
#ifndef UMFA_CPKCS11_H
#define UMFA_CPKCS11_H

typedef unsigned long umfa_ck_ulong;

/* CK_ATTRIBUTE */
typedef struct {
    umfa_ck_ulong type;
    void *value;
    umfa_ck_ulong length;
} UMFACKAttribute;

/* CK_MECHANISM */
typedef struct {
    umfa_ck_ulong mechanism;
    void *parameter;
    umfa_ck_ulong length;
} UMFACKMechanism;

/* CK_C_INITIALIZE_ARGS */
typedef struct {
    void *createMutex;
    void *destroyMutex;
    void *lockMutex;
    void *unlockMutex;
    umfa_ck_ulong flags;
    void *reserved;
} UMFACKInitializeArgs;

/* CK_VERSION */
typedef struct {
    unsigned char major;
    unsigned char minor;
} UMFACKVersion;

/* CK_FUNCTION_LIST, up to C_Sign. */
typedef struct {
    UMFACKVersion version;
    umfa_ck_ulong (*initialize)(void *args);
    umfa_ck_ulong (*finalize)(void *reserved);
    void *getInfo;
    void *getFunctionList;
    umfa_ck_ulong (*getSlotList)(unsigned char tokenPresent, umfa_ck_ulong *slots, umfa_ck_ulong *count);
    void *getSlotInfo;
    umfa_ck_ulong (*getTokenInfo)(umfa_ck_ulong slot, void *info);
    void *getMechanismList;
    void *getMechanismInfo;
    void *initToken;
    void *initPIN;
    void *setPIN;
    umfa_ck_ulong (*openSession)(
        umfa_ck_ulong slot, umfa_ck_ulong flags, void *application, void *notify, umfa_ck_ulong *session);
    umfa_ck_ulong (*closeSession)(umfa_ck_ulong session);
    umfa_ck_ulong (*closeAllSessions)(umfa_ck_ulong slot);
    void *getSessionInfo;
    void *getOperationState;
    void *setOperationState;
    umfa_ck_ulong (*login)(umfa_ck_ulong session, umfa_ck_ulong userType, unsigned char *pin, umfa_ck_ulong length);
    umfa_ck_ulong (*logout)(umfa_ck_ulong session);
    void *createObject;
    void *copyObject;
    void *destroyObject;
    void *getObjectSize;
    umfa_ck_ulong (*getAttributeValue)(
        umfa_ck_ulong session, umfa_ck_ulong object, UMFACKAttribute *attributes, umfa_ck_ulong count);
    void *setAttributeValue;
    umfa_ck_ulong (*findObjectsInit)(umfa_ck_ulong session, UMFACKAttribute *attributes, umfa_ck_ulong count);
    umfa_ck_ulong (*findObjects)(
        umfa_ck_ulong session, umfa_ck_ulong *objects, umfa_ck_ulong maximum, umfa_ck_ulong *count);
    umfa_ck_ulong (*findObjectsFinal)(umfa_ck_ulong session);
    void *encryptInit;
    void *encrypt;
    void *encryptUpdate;
    void *encryptFinal;
    void *decryptInit;
    void *decrypt;
    void *decryptUpdate;
    void *decryptFinal;
    void *digestInit;
    void *digest;
    void *digestUpdate;
    void *digestKey;
    void *digestFinal;
    umfa_ck_ulong (*signInit)(umfa_ck_ulong session, UMFACKMechanism *mechanism, umfa_ck_ulong key);
    umfa_ck_ulong (*sign)(
        umfa_ck_ulong session, unsigned char *data, umfa_ck_ulong length, unsigned char *signature,
        umfa_ck_ulong *signatureLength);
} UMFACKFunctionList;

/* C_GetFunctionList, the one symbol every module exports. */
typedef umfa_ck_ulong (*UMFACKGetFunctionList)(UMFACKFunctionList **list);

#endif
