// Sender side of a four-phase req/ack handshake.
module hs4_sender (
    input  wire clk,
    input  wire areset,
    input  wire send,
    input  wire ack,
    output wire req,
    output wire busy,
    output wire done
);
    localparam [1:0] S_IDLE = 2'd0, S_REQ = 2'd1, S_RELEASE = 2'd2;

    reg [1:0] st;

    always @(posedge clk or posedge areset) begin
        if (areset)
            st <= S_IDLE;
        else begin
            case (st)
                S_IDLE:    if (send) st <= S_REQ;
                S_REQ:     if (ack)  st <= S_RELEASE;
                S_RELEASE: if (!ack) st <= S_IDLE;
                default:   st <= S_IDLE;
            endcase
        end
    end

    assign req  = (st == S_REQ);
    assign busy = (st != S_IDLE);
    assign done = (st == S_RELEASE) && !ack;
endmodule
