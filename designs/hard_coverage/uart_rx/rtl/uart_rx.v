// uart_rx: 8N1 UART receiver, 4 clock cycles per bit (the clock is the x4
// oversampling clock). A frame starts at a falling edge of rx (idle high).
// Each bit's cycles 1, 2 and 3 are sampled and must agree (cycle 0 is left as
// the edge zone); a disagreement is a noise error. The start bit must read 0
// in cycles 1-3 (else a false start: back to idle, no error); data bits come
// LSB first; the stop bit must read 1. Results are one-cycle pulses:
// data_valid (with data_out), frame_err (stop bit 0), break_det (stop bit 0
// and all data bits 0), noise_err. After an error the receiver waits for rx
// to be 1 before it looks for the next start bit.
module uart_rx (
    input  wire       clk,
    input  wire       rst_n,
    input  wire       rx,
    output reg  [7:0] data_out,
    output reg        data_valid,
    output reg        frame_err,
    output reg        break_det,
    output reg        noise_err,
    output wire       busy
);
    localparam [2:0] S_IDLE = 3'd0, S_START = 3'd1, S_DATA = 3'd2, S_STOP = 3'd3, S_WAIT = 3'd4;

    reg [2:0] state;
    reg [1:0] ph;           // cycle within the bit
    reg [2:0] bitn;         // data bit being received
    reg       first;        // the bit's cycle-1 sample
    reg [7:0] shreg;

    assign busy = (state != S_IDLE);

    always @(posedge clk or negedge rst_n) begin
        if (!rst_n) begin
            state <= S_IDLE; ph <= 2'd0; bitn <= 3'd0; first <= 1'b0; shreg <= 8'd0;
            data_out <= 8'd0; data_valid <= 1'b0; frame_err <= 1'b0; break_det <= 1'b0;
            noise_err <= 1'b0;
        end else begin
            data_valid <= 1'b0;
            frame_err  <= 1'b0;
            break_det  <= 1'b0;
            noise_err  <= 1'b0;
            ph <= ph + 2'd1;
            case (state)
                S_IDLE: begin
                    ph <= 2'd1;                         // this cycle is the start bit's cycle 0
                    if (!rx) state <= S_START;
                end
                S_START: begin
                    if (rx) begin
                        state <= S_IDLE;                // false start
                    end else if (ph == 2'd3) begin
                        state <= S_DATA;
                        bitn  <= 3'd0;
                    end
                end
                S_DATA, S_STOP: begin
                    if (ph == 2'd1) begin
                        first <= rx;
                    end else if (ph != 2'd0 && rx != first) begin
                        noise_err <= 1'b1;
                        state     <= S_WAIT;
                    end else if (ph == 2'd3) begin
                        if (state == S_DATA) begin
                            shreg <= {rx, shreg[7:1]};
                            bitn  <= bitn + 3'd1;
                            if (bitn == 3'd7) state <= S_STOP;
                        end else if (rx) begin
                            data_out   <= shreg;
                            data_valid <= 1'b1;
                            state      <= S_IDLE;
                        end else begin
                            if (shreg == 8'd0) break_det <= 1'b1;
                            else               frame_err <= 1'b1;
                            state <= S_WAIT;
                        end
                    end
                end
                default: begin                          // S_WAIT
                    if (rx) state <= S_IDLE;
                end
            endcase
        end
    end
endmodule
