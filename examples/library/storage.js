// Storage.sol, compiled (fixtures/contracts/Storage.sol):
//   uint256 public number; mapping(address => uint256) public balances;
//   function set(uint256 value) emits NumberSet(value indexed, msg.sender indexed)
export const storage = {
  abi: [
    {
      "anonymous": false,
      "inputs": [
        {
          "indexed": true,
          "internalType": "uint256",
          "name": "value",
          "type": "uint256"
        },
        {
          "indexed": true,
          "internalType": "address",
          "name": "by",
          "type": "address"
        }
      ],
      "name": "NumberSet",
      "type": "event"
    },
    {
      "inputs": [
        {
          "internalType": "address",
          "name": "",
          "type": "address"
        }
      ],
      "name": "balances",
      "outputs": [
        {
          "internalType": "uint256",
          "name": "",
          "type": "uint256"
        }
      ],
      "stateMutability": "view",
      "type": "function"
    },
    {
      "inputs": [],
      "name": "number",
      "outputs": [
        {
          "internalType": "uint256",
          "name": "",
          "type": "uint256"
        }
      ],
      "stateMutability": "view",
      "type": "function"
    },
    {
      "inputs": [
        {
          "internalType": "uint256",
          "name": "value",
          "type": "uint256"
        }
      ],
      "name": "set",
      "outputs": [],
      "stateMutability": "nonpayable",
      "type": "function"
    },
    {
      "inputs": [
        {
          "internalType": "address",
          "name": "account",
          "type": "address"
        },
        {
          "internalType": "uint256",
          "name": "amount",
          "type": "uint256"
        }
      ],
      "name": "setBalance",
      "outputs": [],
      "stateMutability": "nonpayable",
      "type": "function"
    }
  ],
  bytecode: '0x6080604052348015600e575f5ffd5b506101a78061001c5f395ff3fe608060405234801561000f575f5ffd5b506004361061004a575f3560e01c806327e235e31461004e57806360fe47b11461007f5780638381f58a14610094578063e30443bc1461009c575b5f5ffd5b61006d61005c366004610112565b60016020525f908152604090205481565b60405190815260200160405180910390f35b61009261008d366004610132565b6100c5565b005b61006d5f5481565b6100926100aa366004610149565b6001600160a01b039091165f90815260016020526040902055565b5f818155604051339183917f88bd9d9f2d1fe8c70d3a880258c1021e2d7828e029938e7a491e67eb3b45ba359190a350565b80356001600160a01b038116811461010d575f5ffd5b919050565b5f60208284031215610122575f5ffd5b61012b826100f7565b9392505050565b5f60208284031215610142575f5ffd5b5035919050565b5f5f6040838503121561015a575f5ffd5b610163836100f7565b94602093909301359350505056fea2646970667358221220018caab7ea319da5345309f64c7411f59d91acf6c48ef00719b0f48ffc25725c64736f6c63430008250033',
};
