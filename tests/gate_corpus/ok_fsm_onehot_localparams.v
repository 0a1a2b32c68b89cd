// accept: the RTLLM Mealy detector with its parameters kept, renamed states as localparams, a default branch and a separate output block; equivalent
module fsm (IN, MATCH, CLK, RST);
    input IN, CLK, RST;
    output reg MATCH;

    parameter s0 = 3'b000;
    parameter s1 = 3'b001;
    parameter s2 = 3'b010;
    parameter s3 = 3'b011;
    parameter s4 = 3'b100;
    parameter s5 = 3'b101;
    localparam [2:0] IDLE = 3'd0, GOT1 = 3'd1, GOT10 = 3'd2, GOT100 = 3'd3, GOT1001 = 3'd4, GOT10011 = 3'd5;
    reg [2:0] cur, nxt;

    always @(posedge CLK or posedge RST)
        if (RST) cur <= IDLE;
        else     cur <= nxt;

    always @* begin
        nxt = IDLE;
        case (cur)
            IDLE:     nxt = IN ? GOT1     : IDLE;
            GOT1:     nxt = IN ? GOT1     : GOT10;
            GOT10:    nxt = IN ? GOT1     : GOT100;
            GOT100:   nxt = IN ? GOT1001  : IDLE;
            GOT1001:  nxt = IN ? GOT10011 : GOT10;
            GOT10011: nxt = IN ? GOT1     : GOT10;
            default:  nxt = IDLE;
        endcase
    end

    always @* MATCH = !RST && (cur == GOT1001) && IN;
endmodule
